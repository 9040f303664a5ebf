"use client";

import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { CheckboxField } from "../../../_components/ui/checkbox";
import { Field } from "../../../_components/ui/field";
import { Input, NativeSelect } from "../../../_components/ui/input";
import { ErrorState } from "../../../_components/ui/states";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "../../../_components/ui/table";
import { CONTACT_FIELDS, suggestSlug, type ColumnMapping } from "./csv-import";
import type { CsvImport, LoadedFile } from "./use-csv-import";

function ColumnTable({ state, file, mapping }: { state: CsvImport; file: LoadedFile; mapping: ColumnMapping }) {
  const { column, setMappingAndReset } = state;
  return (
    <Table>
      <TableCaption>Which column of the file fills each contact field</TableCaption>
      <TableHeader>
        <TableRow>
          <TableHead>Contact field</TableHead>
          <TableHead>Column</TableHead>
          <TableHead className="max-sm:hidden">First row</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {CONTACT_FIELDS.map(({ field, label, hint }) => (
          <TableRow key={field}>
            <TableCell className="align-middle">
              <label htmlFor={`map-${field}`} className="font-semibold">
                {label}
              </label>
              <div className="text-sm text-muted-foreground">{hint}</div>
            </TableCell>
            <TableCell className="align-middle">
              <NativeSelect
                id={`map-${field}`}
                className="min-w-36"
                value={column(field) ?? ""}
                onChange={(e) =>
                  setMappingAndReset({
                    fields: { ...mapping.fields, [field]: e.target.value || undefined },
                    variables: mapping.variables.filter((v) => v.column !== e.target.value),
                  })
                }
              >
                <option value="">— not in the file —</option>
                {file.headers.map((header) => (
                  <option key={header} value={header}>
                    {header}
                  </option>
                ))}
              </NativeSelect>
            </TableCell>
            <TableCell className="align-middle text-muted-foreground max-sm:hidden">{column(field) ? file.rows[0]?.[column(field)!] || "(empty)" : ""}</TableCell>
          </TableRow>
        ))}
        {file.headers
          .filter((header) => !Object.values(mapping.fields).includes(header))
          .map((header) => {
            const variable = mapping.variables.find((v) => v.column === header);
            const id = `var-${suggestSlug(header)}`;
            return (
              <TableRow key={header}>
                <TableCell className="align-middle">
                  <label htmlFor={id}>
                    Column <strong>{header}</strong>
                  </label>
                  <div className="text-sm text-muted-foreground">Custom input variable</div>
                </TableCell>
                <TableCell className="align-middle">
                  <div className="flex flex-wrap items-center gap-2">
                    <NativeSelect
                      id={id}
                      className="w-auto min-w-36 flex-1"
                      value={variable ? "variable" : "ignore"}
                      onChange={(e) =>
                        setMappingAndReset({
                          ...mapping,
                          variables:
                            e.target.value === "variable" ? [...mapping.variables, { column: header, slug: suggestSlug(header) }] : mapping.variables.filter((v) => v.column !== header),
                        })
                      }
                    >
                      <option value="ignore">Ignore</option>
                      <option value="variable">Send as variable</option>
                    </NativeSelect>
                    {variable && (
                      <Input
                        aria-label={`Variable name for column ${header}`}
                        className="w-auto min-w-36 flex-1"
                        value={variable.slug}
                        list="agent-variable-slugs"
                        onChange={(e) => setMappingAndReset({ ...mapping, variables: mapping.variables.map((v) => (v.column === header ? { ...v, slug: e.target.value } : v)) })}
                      />
                    )}
                  </div>
                </TableCell>
                <TableCell className="align-middle text-muted-foreground max-sm:hidden">{file.rows[0]?.[header] || "(empty)"}</TableCell>
              </TableRow>
            );
          })}
      </TableBody>
    </Table>
  );
}

/** Step 2: which column is which (mapped automatically, editable), the import's options, and the check. */
export function ImportMappingStep({ state, file, mapping }: { state: CsvImport; file: LoadedFile; mapping: ColumnMapping }) {
  const { column, options, setOptionsAndReset, missingRequired, mappedColumns, checks, checking } = state;
  return (
    <Section title="2. Columns" description="Mapped automatically from the column names; change anything that is wrong.">
      <div className="flex flex-col gap-3">
        <ColumnTable state={state} file={file} mapping={mapping} />
        <datalist id="agent-variable-slugs">
          {state.inputVariables.map((v) => (
            <option key={v.slug} value={v.slug}>
              {v.displayName}
            </option>
          ))}
        </datalist>
        {!column("name") || !column("phoneNumber") ? (
          <Alert tone="warning">Map a column to {!column("name") ? "Name" : "Phone number"}: without it every row is rejected.</Alert>
        ) : null}
        {missingRequired.length > 0 && (
          <Alert tone="warning">
            The agent requires {missingRequired.map((v) => v.displayName).join(", ")}, which no column provides: every row would be rejected.
          </Alert>
        )}
        {mappedColumns.size < file.headers.length && <p className="text-sm text-muted-foreground">{file.headers.length - mappedColumns.size} column(s) ignored.</p>}
        <div className="grid grid-cols-1 items-start gap-3 md:grid-cols-3">
          <Field label="Default time zone (optional)" id="default-timezone" hint="For rows without a time zone; else guessed from the number, else the agent's.">
            <Input placeholder="e.g. America/New_York" value={options.timezone} onChange={(e) => setOptionsAndReset({ ...options, timezone: e.target.value })} />
          </Field>
          <Field label="Chain contacts by (optional)" id="group-by" hint="Contacts sharing the value are called one after another.">
            <NativeSelect value={options.groupByField} onChange={(e) => setOptionsAndReset({ ...options, groupByField: e.target.value, allowDuplicates: false })}>
              <option value="">No chaining</option>
              {state.variableSlugs.map((slug) => (
                <option key={slug} value={slug}>
                  {slug}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <CheckboxField
            id="allow-duplicates"
            label="Allow duplicate numbers"
            className="md:mt-7"
            checked={options.allowDuplicates}
            disabled={Boolean(options.groupByField)}
            onCheckedChange={(checked) => setOptionsAndReset({ ...options, allowDuplicates: checked === true })}
          />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button variant="primary" onClick={() => void state.checkRows()} disabled={Boolean(checking) || Boolean(state.run?.running)}>
            {checks ? "Check rows again" : "Check rows"}
          </Button>
          {checking && (
            <span className="text-sm text-muted-foreground" aria-live="polite">
              Checked {checking.done.toLocaleString()} of {file.rows.length.toLocaleString()} rows…
            </span>
          )}
        </div>
        {Boolean(state.checkError) && <ErrorState error={state.checkError} retry={() => void state.checkRows()} />}
      </div>
    </Section>
  );
}
