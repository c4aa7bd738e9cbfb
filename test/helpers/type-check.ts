// Compile-time checks run as a test: a spec whose type-level assertions (Expect<Same<…>>) are
// its content asks the TypeScript compiler, with the project's tsconfig, for its diagnostics.
import { join } from 'node:path';
import * as ts from 'typescript';

/** The diagnostics of one file under the project's tsconfig.json: empty when it compiles. */
export function compileProblems(file: string): string[] {
  const root = join(__dirname, '..', '..');
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram([file], { ...config!.options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
