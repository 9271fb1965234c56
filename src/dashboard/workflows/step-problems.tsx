import type { StepErrorGroup } from "./workflow-fields";

/** One step's problems, each after the field it is about (the editor's errors and warnings, a step test's refusal). */
export function StepProblems(props: { problems: StepErrorGroup["problems"] }) {
  return (
    <ul>
      {props.problems.map((problem) => (
        <li>
          {problem.field ? (
            <>
              <code>{problem.field}</code>:{" "}
            </>
          ) : null}
          {problem.message}
        </li>
      ))}
    </ul>
  );
}
