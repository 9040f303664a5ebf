import { notFound } from "next/navigation";

/**
 * A dynamic segment of a page's URL as the page uses it (Next.js hands it over still percent-encoded): decoded once, or
 * the console's 404 page when it cannot be a value — broken or overlong percent-encoding (`%E0%A4%A`, `%C0%AF`) or a
 * control character (`%00`). The production server refuses such paths before Next.js (server/http/next-edge.ts); this
 * keeps `next dev` and any other way in from answering 500.
 */
export async function pageParam<K extends string>(params: Promise<Record<K, string>>, name: K): Promise<string> {
  const raw = (await params)[name];
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    notFound();
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(value)) notFound();
  return value;
}
