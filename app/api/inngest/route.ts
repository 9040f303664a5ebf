import { inngest, inngestMode } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { createInngestHandler } from "@/inngest/serve";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handler = createInngestHandler({ client: inngest, functions, mode: inngestMode });

export { handler as GET, handler as POST, handler as PUT };
