// The compiler's public entry (the "." export of @anydsl/compiler): what hosts, libraries,
// benchmarks and apps use, so that they depend on this surface and not on where the
// driver keeps its files. Compiler-internal layers (the IR, the interpreter) stay deep
// imports for the compiler's own tests.
export { type CompiledLibrary, CompileFailure, type CompileOptions, type CompileRequest, compile, type NativeFunction } from './driver/compile.ts';
export { type BuildOptions, type BuildResult, buildProgram } from './driver/build.ts';
export { checkOutputPath, replaceAtomic, writeFileAtomic } from './driver/output.ts';
export type { CType, ExportedFn, OptLevel } from './driver/pipeline.ts';
export { type Diagnostic, renderDiagnostics, type Severity, type SourceFile, type Span } from './syntax/diagnostics.ts';
