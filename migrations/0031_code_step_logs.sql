-- A code step's console lines live beside its result (the step's result is what the code returned).
ALTER TABLE execution_steps ADD COLUMN logs TEXT;
