/**
 * `instanceof` for app classes whose instances cross from one copy of the app's modules to another. The built app runs
 * its server code in more than one module graph (the custom server's, unbundled under tsx, and Next.js's bundles:
 * instrumentation and each route): an error thrown by a service loaded in one and checked in another would fail a
 * plain `instanceof` (docs/deploy.md, "One process, several module graphs"). A class opts in with a `brand` (a
 * registry symbol, the same in every copy) and `static [Symbol.hasInstance](value) { return hasBrand(value, this) }`;
 * its constructor calls `stampBrands(this, new.target)`. Subclasses declare their own brand, so a check against a
 * subclass stays strict.
 */
const BRANDS = Symbol.for("outbound-calling.brands");

type Branded = { brand?: symbol };

export function stampBrands(instance: object, constructor: abstract new (...args: never[]) => unknown): void {
  const brands: symbol[] = [];
  for (let current: unknown = constructor; typeof current === "function" && current !== Error && current !== Object; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, "brand")) brands.push((current as Branded).brand!);
  }
  Object.defineProperty(instance, BRANDS, { value: brands, enumerable: false });
}

export function hasBrand(value: unknown, constructor: abstract new (...args: never[]) => unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const brand = Object.hasOwn(constructor, "brand") ? (constructor as Branded).brand : undefined;
  if (!brand) return Function.prototype[Symbol.hasInstance].call(constructor, value);
  const brands = (value as Record<symbol, unknown>)[BRANDS];
  return Array.isArray(brands) && brands.includes(brand);
}
