import { serveLocalRecording } from "@/server/storage/serve-local-recording";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Signed, short-lived links to locally stored recordings (see server/storage/serve-local-recording.ts). */
const handler = (req: Request) => serveLocalRecording(req);

export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as DELETE };
