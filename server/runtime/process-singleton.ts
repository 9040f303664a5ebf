/**
 * Process-wide state, declared in one place (../shared/STYLE.md): the built app runs its server code in more than one
 * module graph (the custom server's under tsx, and Next.js's bundles: instrumentation and each route), so a module-level
 * `let` would exist once per graph. `processSingleton(key, create)` keeps one value per key for the whole process,
 * made on first use; the keys are one typed list, so a new singleton is named here. (The older `globalThis` casts in
 * other files move here one by one: issue 36.)
 */
export const PROCESS_SINGLETON_KEYS = ["stageCpu", "appConfig"] as const;
export type ProcessSingletonKey = (typeof PROCESS_SINGLETON_KEYS)[number];

type Registry = { values: Map<ProcessSingletonKey, unknown>; created: Map<ProcessSingletonKey, number> };

const REGISTRY = Symbol.for("outbound-calling.process-singletons");

function registry(): Registry {
  const holder = globalThis as Record<symbol, Registry | undefined>;
  holder[REGISTRY] ??= { values: new Map(), created: new Map() };
  return holder[REGISTRY];
}

/** The process's one value for `key`, made by `create` the first time any module copy asks. */
export function processSingleton<T>(key: ProcessSingletonKey, create: () => T): T {
  const { values, created } = registry();
  if (!values.has(key)) {
    values.set(key, create());
    created.set(key, (created.get(key) ?? 0) + 1);
  }
  return values.get(key) as T;
}

/** How many times each singleton was made in this process (tests: once each). */
export function processSingletonCreations(): ReadonlyMap<ProcessSingletonKey, number> {
  return registry().created;
}
