import { getDb } from "@/db";
import { unsubscribeEmail } from "@/server/services/messaging/unsubscribe-email";
import { verifyUnsubscribeToken } from "@/server/services/messaging/unsubscribe-token";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Context = { params: Promise<{ token: string }> };

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:4rem auto;line-height:1.5"><h1 style="font-size:1.4rem">${title}</h1>${body}</body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" } });
}

/**
 * The link in an email's footer: a page with one button (a GET changes nothing — mail scanners open links), which
 * POSTs here like a mail client's one-click unsubscribe.
 */
export async function GET(_request: Request, context: Context): Promise<Response> {
  const { token } = await context.params;
  if (!verifyUnsubscribeToken(token)) return page(404, "Link not valid", "<p>This unsubscribe link is not valid.</p>");
  return page(200, "Unsubscribe", `<p>Stop receiving these emails?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`);
}

/** RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click` posted by the mail client), and the page's button. */
export async function POST(_request: Request, context: Context): Promise<Response> {
  const { token } = await context.params;
  const outcome = await unsubscribeEmail(getDb(), { token, now: new Date() });
  if (outcome.status === "invalid") return page(404, "Link not valid", "<p>This unsubscribe link is not valid.</p>");
  return page(200, "You are unsubscribed", "<p>You will not receive these emails any more.</p>");
}
