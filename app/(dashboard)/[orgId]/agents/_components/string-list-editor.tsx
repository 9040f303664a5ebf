"use client";

type Props = {
  id: string;
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
  addLabel: string;
  listId?: string;
  hint?: string;
};

/** An editable list of strings: one labelled input per entry, keyboard friendly. */
export function StringListEditor({ id, label, values, onChange, placeholder, addLabel, listId, hint }: Props) {
  return (
    <fieldset className="field" style={{ border: "none", padding: 0 }}>
      <legend className="label-text">{label}</legend>
      {hint && <span className="hint">{hint}</span>}
      {values.map((value, i) => (
        <div className="row" key={i} style={{ alignItems: "center", marginTop: 4 }}>
          <label className="visually-hidden" htmlFor={`${id}-${i}`}>
            {label} {i + 1}
          </label>
          <input
            id={`${id}-${i}`}
            type="text"
            value={value}
            placeholder={placeholder}
            list={listId}
            style={{ flex: 1 }}
            onChange={(e) => onChange(values.map((v, j) => (j === i ? e.target.value : v)))}
          />
          <button type="button" className="btn btn-small" onClick={() => onChange(values.filter((_, j) => j !== i))} aria-label={`Remove ${label} ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <div style={{ marginTop: 6 }}>
        <button type="button" className="btn btn-small" onClick={() => onChange([...values, ""])}>
          {addLabel}
        </button>
      </div>
    </fieldset>
  );
}
