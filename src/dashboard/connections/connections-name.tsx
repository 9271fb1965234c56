/**
 * The connection's name, on the new and the edit form: an optional hint and the error it was
 * refused with, both tied to the input with aria-describedby.
 */
export function ConnectionNameInput(props: { value: string; error?: string; hint?: string }) {
  const describedBy = [props.hint ? "connection-name-hint" : "", props.error ? "connection-name-error" : ""].filter(Boolean).join(" ");
  return (
    <>
      <label for="connection-name">Name</label>
      {props.hint ? (
        <p class="hint" id="connection-name-hint">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id="connection-name-error">
          {props.error}
        </p>
      ) : null}
      <input
        type="text"
        id="connection-name"
        name="name"
        value={props.value}
        required
        maxlength={100}
        autocomplete="off"
        aria-describedby={describedBy || undefined}
        aria-invalid={props.error ? "true" : undefined}
      />
    </>
  );
}
