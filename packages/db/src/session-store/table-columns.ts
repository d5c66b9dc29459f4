import { Prisma } from "@prisma/client";

// The one description of a table's columns that the session store's SQL and row types derive from:
// SELECT lists, INSERT column and value lists, SET lists, `jsonb_to_recordset` definitions, the row
// type `$queryRaw` returns and its conversion to domain values. A descriptor is checked against
// Prisma's generated model type (`ModelColumns`), so it cannot drift from `prisma/schema.prisma`.

type SqlType = "text" | "int" | "bigint" | "jsonb";

interface Column {
  readonly type: SqlType;
  readonly nullable?: true;
}

export type TableColumns = Readonly<Record<string, Column>>;

export const textColumn = { type: "text" } as const;
export const nullableTextColumn = { type: "text", nullable: true } as const;
export const intColumn = { type: "int" } as const;
export const bigintColumn = { type: "bigint" } as const;
export const nullableBigintColumn = { type: "bigint", nullable: true } as const;
export const jsonbColumn = { type: "jsonb" } as const;
export const nullableJsonbColumn = { type: "jsonb", nullable: true } as const;

/** The SQL type of a Prisma model field's TypeScript type (`BigInt` → bigint, `Int` → number, …). */
type SqlTypeOf<Value> = [NonNullable<Value>] extends [bigint]
  ? "bigint"
  : [NonNullable<Value>] extends [number]
    ? "int"
    : [NonNullable<Value>] extends [string]
      ? "text"
      : "jsonb";

/**
 * Columns that exist on the Prisma model with the same SQL type and nullability (JSON's type holds
 * null either way, so a JSONB column's nullability is not checked).
 */
export type ModelColumns<Model> = {
  readonly [Name in keyof Model]?: SqlTypeOf<Model[Name]> extends "jsonb"
    ? { readonly type: "jsonb"; readonly nullable?: true }
    : null extends Model[Name]
      ? { readonly type: SqlTypeOf<Model[Name]>; readonly nullable: true }
      : { readonly type: SqlTypeOf<Model[Name]>; readonly nullable?: never };
};

interface RawValues {
  text: string;
  int: number;
  bigint: bigint;
  jsonb: unknown;
}

interface DomainValues {
  text: string;
  int: number;
  bigint: number;
  jsonb: unknown;
}

type ValueOf<Of extends Column, Values extends Record<SqlType, unknown>> =
  | Values[Of["type"]]
  | (Of["nullable"] extends true ? null : never);

/** A row as `$queryRaw` returns these columns (BIGINT as bigint, JSONB parsed). */
export type RawRow<Columns extends TableColumns> = {
  [Name in keyof Columns]: ValueOf<Columns[Name], RawValues>;
};

/** The same row with BIGINTs (epoch milliseconds) as numbers, as the domain carries them. */
export type DomainRow<Columns extends TableColumns> = {
  [Name in keyof Columns]: ValueOf<Columns[Name], DomainValues>;
};

function names(columns: TableColumns): string[] {
  return Object.keys(columns);
}

/** `a, b, c` (or `t.a, t.b, t.c` with `alias`) as text, for queries sent through `pg`. */
export function columnNames(columns: TableColumns, alias?: string): string {
  return names(columns)
    .map((name) => (alias === undefined ? name : `${alias}.${name}`))
    .join(", ");
}

/** `columnNames` as SQL, for SELECT, INSERT and RETURNING lists of Prisma queries. */
export function columnList(columns: TableColumns, alias?: string): Prisma.Sql {
  return Prisma.raw(columnNames(columns, alias));
}

/** The columns `names` of a descriptor, as a descriptor of their own (e.g. what one SELECT reads). */
export function pickColumns<Columns extends TableColumns, Name extends keyof Columns & string>(
  columns: Columns,
  picked: readonly Name[],
): Pick<Columns, Name> {
  return Object.fromEntries(picked.map((name) => [name, columns[name]])) as Pick<Columns, Name>;
}

/**
 * `a = source.a, …` for every column but the `key`: a write that replaces the row with `source`'s
 * (`EXCLUDED` in an upsert, a row of values in an `UPDATE … FROM`).
 */
export function replacingAssignmentList(
  columns: TableColumns,
  key: readonly string[],
  source: string,
): Prisma.Sql {
  return Prisma.raw(
    names(columns)
      .filter((name) => !key.includes(name))
      .map((name) => `${name} = ${source}.${name}`)
      .join(", "),
  );
}

/** `a text, b bigint, …`: the column definition list of `jsonb_to_recordset(…) AS r(…)`. */
export function recordsetDefinition(columns: TableColumns): Prisma.Sql {
  return Prisma.raw(
    Object.entries(columns)
      .map(([name, column]) => `${name} ${column.type}`)
      .join(", "),
  );
}

/** One value as a parameter cast to its column's type (a null JSON value is SQL NULL). */
function parameter(column: Column, value: unknown): Prisma.Sql {
  if (column.type === "jsonb") {
    return value === null ? Prisma.sql`NULL::jsonb` : Prisma.sql`${JSON.stringify(value)}::jsonb`;
  }
  return Prisma.sql`${value}::${Prisma.raw(column.type)}`;
}

/**
 * The parameters of one row for `INSERT … (columnList) VALUES (…)`, in column order; a column in
 * `computed` takes that SQL instead of its parameter (e.g. a value the statement decides).
 */
export function valueList<Columns extends TableColumns>(
  columns: Columns,
  row: DomainRow<Columns>,
  computed: Partial<Record<keyof Columns, Prisma.Sql>> = {},
): Prisma.Sql {
  return Prisma.join(
    Object.entries(columns).map(([name, column]) => computed[name] ?? parameter(column, row[name])),
  );
}

/** `a = $1, b = $2` for the columns `patch` sets (undefined: left as it is). */
export function assignmentList<Columns extends TableColumns>(
  columns: Columns,
  patch: Partial<DomainRow<Columns>>,
): Prisma.Sql[] {
  return Object.entries(columns).flatMap(([name, column]) => {
    const value = patch[name];
    return value === undefined ? [] : [Prisma.sql`${Prisma.raw(name)} = ${parameter(column, value)}`];
  });
}

/**
 * A raw row's values as the domain carries them (BIGINT → number, null kept; `pg` without Prisma
 * returns BIGINT as a string, which converts alike).
 */
export function toDomainRow<Columns extends TableColumns>(
  columns: Columns,
  row: RawRow<Columns>,
): DomainRow<Columns> {
  const converted: Record<string, unknown> = {};
  for (const [name, column] of Object.entries(columns)) {
    const value: unknown = row[name];
    converted[name] = column.type === "bigint" && value !== null ? Number(value) : value;
  }
  return converted as DomainRow<Columns>;
}
