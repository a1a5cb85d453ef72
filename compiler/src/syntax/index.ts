// The syntax layer's public surface: lexing, parsing, the AST, spans and diagnostics.
export * from './ast.ts';
export * from './diagnostics.ts';
export { lex, primName, type Keyword, type Punct, type Token, type TokenKind } from './lexer.ts';
export { parseExpression, parseModule } from './parser.ts';
export { freshNodeId } from './node-id.ts';
export { printBlock, printExpr, printItem, printModule, printPattern, printType } from './print.ts';
