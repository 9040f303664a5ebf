import { getDb } from "@/db";
import { handleApiV1 } from "@/server/http/api-v1";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handler = (req: Request) => handleApiV1(req, { db: getDb() });

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
