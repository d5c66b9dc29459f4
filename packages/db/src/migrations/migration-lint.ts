/**
 * The expand/contract rule for `prisma/migrations/` (DESIGN §10.8, docs/deployment.md#migrations):
 * during a rolling upgrade the previous release still runs against the new schema, so a migration
 * may never drop or rename what that code reads. A contraction (DROP TABLE / VIEW / TYPE, ALTER TABLE
 * … DROP COLUMN, any RENAME) of an object is allowed only when
 *   1. an EARLIER migration marked that object deprecated with a comment line
 *        `-- parley:deprecate table "name"`  or  `-- parley:deprecate column "table"."name"`
 *      (shipped with the release that stopped reading it), and
 *   2. no database-reading source references the name any more: `prisma/schema.prisma` and the
 *      non-test sources of `@parley/db` (the only package that talks to PostgreSQL).
 * A contraction made before this rule existed and already applied (its file cannot change: the
 * checksum guards it) is listed in `prisma/migration-lint.json` with why; the lint reports every
 * other one.
 */

export type ContractedKind = "table" | "column" | "type";

export interface ContractedObject {
  kind: ContractedKind;
  /** `table`, `type`, or `table.column`, lower case, unquoted. */
  name: string;
}

export interface Contraction extends ContractedObject {
  migration: string;
  /** The statement, whitespace collapsed. */
  statement: string;
}

export interface MigrationLintViolation extends Contraction {
  reason: string;
}

/** One already-applied contraction the rule lets through, with the reason on record. */
export interface GrandfatheredContraction {
  migration: string;
  kind: ContractedKind;
  name: string;
  why: string;
}

export interface MigrationLintInput {
  migrations: readonly { name: string; sql: string }[];
  /** The database-reading sources (schema and `@parley/db` code), by path. */
  sources: readonly { path: string; text: string }[];
  grandfathered?: readonly GrandfatheredContraction[];
}

const DEPRECATE_MARKER =
  /^\s*--\s*parley:deprecate\s+(table|column|type)\s+("[^"]+"(?:\."[^"]+")?|[\w.]+)\s*$/gim;

function unquote(name: string): string {
  return name.replaceAll('"', "").trim().toLowerCase();
}

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, " ").replace(/\/\*[\s\S]*?\*\//g, " ");
}

/** Splits on commas outside parentheses (the actions of one ALTER TABLE). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth += 1;
    if (char === ")") depth -= 1;
    if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

const IDENT = String.raw`("[^"]+"|[\w.]+)`;

/** The objects one statement drops or renames (none for an expand-only statement). */
export function contractionsOf(statement: string): ContractedObject[] {
  const text = statement.replace(/\s+/g, " ").trim();
  const drop = /^DROP (TABLE|VIEW|MATERIALIZED VIEW|TYPE)( IF EXISTS)? (.+?)( CASCADE| RESTRICT)?$/i.exec(
    text,
  );
  if (drop) {
    const kind: ContractedKind = drop[1]?.toUpperCase() === "TYPE" ? "type" : "table";
    return splitTopLevel(drop[3] ?? "").map((name) => ({ kind, name: unquote(name) }));
  }
  const alterType = new RegExp(String.raw`^ALTER TYPE ${IDENT} RENAME\b`, "i").exec(text);
  if (alterType) return [{ kind: "type", name: unquote(alterType[1] ?? "") }];
  const alterTable = new RegExp(`^ALTER TABLE( IF EXISTS)?( ONLY)? ${IDENT} (.+)$`, "i").exec(text);
  if (!alterTable) return [];
  const table = unquote(alterTable[3] ?? "");
  const found: ContractedObject[] = [];
  for (const action of splitTopLevel(alterTable[4] ?? "")) {
    if (/^RENAME TO\b/i.test(action)) found.push({ kind: "table", name: table });
    const renamed = new RegExp(String.raw`^RENAME( COLUMN)? ${IDENT} TO\b`, "i").exec(action);
    if (renamed && !/^RENAME CONSTRAINT\b/i.test(action)) {
      found.push({ kind: "column", name: `${table}.${unquote(renamed[2] ?? "")}` });
    }
    // DROP CONSTRAINT / DEFAULT / NOT NULL are not drops of a name the code reads.
    const dropped = new RegExp(`^DROP( COLUMN)?( IF EXISTS)? ${IDENT}`, "i").exec(action);
    if (dropped && !/^DROP (CONSTRAINT|DEFAULT|NOT NULL|IDENTITY|EXPRESSION)\b/i.test(action)) {
      found.push({ kind: "column", name: `${table}.${unquote(dropped[3] ?? "")}` });
    }
  }
  return found;
}

/** Every contraction in one migration file. */
export function contractionsIn(migration: { name: string; sql: string }): Contraction[] {
  return stripComments(migration.sql)
    .split(";")
    .flatMap((statement) =>
      contractionsOf(statement).map((object) => ({
        ...object,
        migration: migration.name,
        statement: statement.replace(/\s+/g, " ").trim(),
      })),
    );
}

function deprecationsIn(sql: string): Set<string> {
  const marked = new Set<string>();
  for (const match of sql.matchAll(DEPRECATE_MARKER))
    marked.add(`${match[1]?.toLowerCase()}:${unquote(match[2] ?? "")}`);
  return marked;
}

/** The sources that still name the object (its last dotted part, as a whole word). */
function referencesTo(object: ContractedObject, sources: MigrationLintInput["sources"]): string[] {
  const word = object.name.split(".").at(-1) ?? object.name;
  const pattern = new RegExp(String.raw`(?<![\w-])${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\w-])`);
  return sources.filter((source) => pattern.test(source.text)).map((source) => source.path);
}

/** The contractions that break the rule, in migration order; empty when the migrations are fine. */
export function lintMigrations(input: MigrationLintInput): MigrationLintViolation[] {
  const ordered = [...input.migrations].sort((a, b) => a.name.localeCompare(b.name));
  const deprecatedEarlier = new Set<string>();
  const violations: MigrationLintViolation[] = [];
  for (const migration of ordered) {
    for (const contraction of contractionsIn(migration)) {
      const excused = input.grandfathered?.some(
        (entry) =>
          entry.migration === migration.name &&
          entry.kind === contraction.kind &&
          entry.name === contraction.name,
      );
      if (excused) continue;
      const key = `${contraction.kind}:${contraction.name}`;
      if (!deprecatedEarlier.has(key)) {
        violations.push({
          ...contraction,
          reason: `no earlier migration marks it deprecated (-- parley:deprecate ${contraction.kind} ${contraction.name}): the previous release may still read it`,
        });
        continue;
      }
      const readers = referencesTo(contraction, input.sources);
      if (readers.length > 0) {
        violations.push({ ...contraction, reason: `still referenced by ${readers.join(", ")}` });
      }
    }
    for (const marked of deprecationsIn(migration.sql)) deprecatedEarlier.add(marked);
  }
  return violations;
}
