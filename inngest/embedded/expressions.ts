import type { StoredCondition, StoredOperand } from "@/db/schema/jobs";

/**
 * The subset of Inngest's CEL expressions the embedded runner understands:
 *
 *   condition := clause ("&&" clause)*           clause := comparison | "(" condition ")"
 *   comparison := operand ("==" | "!=") operand   operand := path | 'string' | "string" | number | true | false | null
 *   path := ("event" | "async") ("." name | "[" 'string' "]")*
 *   value := term ("+" term)*                     (keys: idempotency, concurrency; "+" concatenates as strings)
 *
 * That covers `match: "data.x"` (the SDK sends `event.data.x == async.data.x`), `event.data.x == 'literal'` and
 * the onFailure trigger. Anything else (||, !, <, functions, macros) is refused with an ExpressionError that says
 * what is supported, at registration for configuration and when the step is reached for waitForEvent.
 *
 * A comparison with a missing field is false (CEL raises "no such key", which Inngest treats as no match).
 */

export class ExpressionError extends Error {
  constructor(expression: string, reason: string) {
    super(
      `Unsupported expression ${JSON.stringify(expression)}: ${reason}. The embedded Inngest runner supports ` +
        "comparisons (== or !=) of event./async. fields and literals joined by &&, e.g. " +
        "\"event.data.id == async.data.id && async.data.kind == 'x'\".",
    );
    this.name = "ExpressionError";
  }
}

export type Operand = StoredOperand;
export type Condition = StoredCondition;

type Token =
  | { type: "ident"; value: string }
  | { type: "string"; value: string }
  | { type: "number"; value: number }
  | { type: "op"; value: "==" | "!=" | "&&" | "+" | "." | "[" | "]" | "(" | ")" };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expression.length) {
    const char = expression[i]!;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    const two = expression.slice(i, i + 2);
    if (two === "==" || two === "!=" || two === "&&") {
      tokens.push({ type: "op", value: two });
      i += 2;
      continue;
    }
    if (".[]()+".includes(char)) {
      tokens.push({ type: "op", value: char as "." });
      i++;
      continue;
    }
    if (char === "'" || char === '"') {
      let value = "";
      i++;
      while (i < expression.length && expression[i] !== char) {
        if (expression[i] === "\\" && i + 1 < expression.length) i++;
        value += expression[i];
        i++;
      }
      if (i >= expression.length) throw new ExpressionError(expression, "unterminated string");
      i++;
      tokens.push({ type: "string", value });
      continue;
    }
    const number = /^-?\d+(\.\d+)?/.exec(expression.slice(i));
    if (number) {
      tokens.push({ type: "number", value: Number(number[0]) });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(expression.slice(i));
    if (ident) {
      tokens.push({ type: "ident", value: ident[0] });
      i += ident[0].length;
      continue;
    }
    throw new ExpressionError(expression, `unexpected character ${JSON.stringify(char)}`);
  }
  return tokens;
}

class Parser {
  private position = 0;
  constructor(
    private readonly expression: string,
    private readonly tokens: Token[],
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private isOp(value: string): boolean {
    const token = this.peek();
    return token?.type === "op" && token.value === value;
  }

  private fail(reason: string): never {
    throw new ExpressionError(this.expression, reason);
  }

  expectEnd() {
    const token = this.peek();
    if (token) this.fail(`unexpected ${JSON.stringify(token.value)}`);
  }

  condition(): Condition[] {
    const clauses = [...this.clause()];
    while (this.isOp("&&")) {
      this.position++;
      clauses.push(...this.clause());
    }
    return clauses;
  }

  private clause(): Condition[] {
    if (this.isOp("(")) {
      this.position++;
      const inner = this.condition();
      if (!this.isOp(")")) this.fail("missing )");
      this.position++;
      return inner;
    }
    const left = this.operand();
    const token = this.peek();
    if (token?.type !== "op" || (token.value !== "==" && token.value !== "!=")) {
      this.fail(token ? `expected == or != but found ${JSON.stringify(token.value)}` : "expected == or !=");
    }
    this.position++;
    const right = this.operand();
    return [{ left, op: token.value, right }];
  }

  value(): Operand[] {
    const terms = [this.operand()];
    while (this.isOp("+")) {
      this.position++;
      terms.push(this.operand());
    }
    return terms;
  }

  private operand(): Operand {
    const token = this.peek();
    if (!token) this.fail("unexpected end");
    this.position++;
    if (token.type === "string" || token.type === "number") return { kind: "literal", value: token.value };
    if (token.type === "ident") {
      if (token.value === "true" || token.value === "false") return { kind: "literal", value: token.value === "true" };
      if (token.value === "null") return { kind: "literal", value: null };
      if (token.value !== "event" && token.value !== "async") this.fail(`unknown name ${JSON.stringify(token.value)}`);
      const path: string[] = [];
      for (;;) {
        if (this.isOp(".")) {
          this.position++;
          const name = this.peek();
          if (name?.type !== "ident") this.fail("expected a field name after .");
          this.position++;
          path.push(name.value);
        } else if (this.isOp("[")) {
          this.position++;
          const key = this.peek();
          if (key?.type !== "string" && key?.type !== "number") this.fail("expected a string or number index");
          this.position++;
          if (!this.isOp("]")) this.fail("missing ]");
          this.position++;
          path.push(String(key.value));
        } else break;
      }
      if (this.isOp("(")) this.fail("function calls are not supported");
      return { kind: "path", root: token.value, path };
    }
    this.fail(`unexpected ${JSON.stringify(token.value)}`);
  }
}

/** Parses a boolean expression into comparisons that must all hold. Throws ExpressionError. */
export function parseCondition(expression: string): Condition[] {
  const parser = new Parser(expression, tokenize(expression));
  const conditions = parser.condition();
  parser.expectEnd();
  return conditions;
}

/** Parses a key expression (`event.data.id`, `event.data.a + '-' + event.data.b`). Throws ExpressionError. */
export function parseValue(expression: string): Operand[] {
  const parser = new Parser(expression, tokenize(expression));
  const terms = parser.value();
  parser.expectEnd();
  return terms;
}

export type Scope = { event?: unknown; async?: unknown };

export function resolvePath(subject: unknown, path: string[]): unknown {
  let current = subject;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function operandValue(operand: Operand, scope: Scope): unknown {
  if (operand.kind === "literal") return operand.value;
  return resolvePath(scope[operand.root], operand.path);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

export function evaluateConditions(conditions: Condition[], scope: Scope): boolean {
  return conditions.every(({ left, op, right }) => {
    const a = operandValue(left, scope);
    const b = operandValue(right, scope);
    if (a === undefined || b === undefined) return false;
    return op === "==" ? jsonEqual(a, b) : !jsonEqual(a, b);
  });
}

/** Replaces paths into `root` by the values they have in `subject` (e.g. the run's trigger event for a wait). */
export function bindConditions(conditions: Condition[], root: "event" | "async", subject: unknown): Condition[] {
  const bind = (operand: Operand): Operand =>
    operand.kind === "path" && operand.root === root ? { kind: "literal", value: resolvePath(subject, operand.path) } : operand;
  return conditions.map((condition) => ({ ...condition, left: bind(condition.left), right: bind(condition.right) }));
}

/** Paths an expression reads, by root: used to refuse `async` in trigger conditions. */
export function rootsOf(conditions: Condition[]): Set<"event" | "async"> {
  const roots = new Set<"event" | "async">();
  for (const { left, right } of conditions) {
    if (left.kind === "path") roots.add(left.root);
    if (right.kind === "path") roots.add(right.root);
  }
  return roots;
}

/** A key as a string: strings as they are, anything else as JSON; concatenated. */
export function evaluateValue(terms: Operand[], scope: Scope): string {
  return terms
    .map((term) => {
      const value = operandValue(term, scope);
      return typeof value === "string" ? value : JSON.stringify(value ?? null);
    })
    .join("");
}
