// Enters the items of one level (a module, a `mod`, a block) into a frame before
// anything is checked, so items at one level see each other regardless of order.
import type { FnDecl, Ident, Item } from '../syntax/ast.ts';
import type { DiagnosticSink } from '../syntax/diagnostics.ts';
import { Frame, type TypeEntry, type ValueEntry } from './scope.ts';

export interface CollectHooks {
  sink: DiagnosticSink;
  /** Called for every item entered, with the frame it is declared in. */
  declared(item: Item | FnDecl, frame: Frame): void;
}

export function collectItems(items: readonly Item[], frame: Frame, hooks: CollectHooks): void {
  const value = (name: Ident, e: ValueEntry) => {
    if (frame.values.has(name.name)) hooks.sink.error(name.span, `duplicate definition of '${name.name}'`);
    else frame.values.set(name.name, e);
  };
  const type = (name: Ident, e: TypeEntry) => {
    if (frame.types.has(name.name)) hooks.sink.error(name.span, `duplicate definition of '${name.name}'`);
    else frame.types.set(name.name, e);
  };
  for (const item of items) {
    switch (item.kind) {
      case 'fn':
        value(item.name, { kind: 'fn', decl: item });
        break;
      case 'extern':
        for (const f of item.fns) {
          value(f.name, { kind: 'fn', decl: f });
          hooks.declared(f, frame);
        }
        break;
      case 'static':
        value(item.name, { kind: 'static', decl: item });
        break;
      case 'struct':
        type(item.name, { kind: 'struct', decl: item });
        break;
      case 'enum':
        type(item.name, { kind: 'enum', decl: item });
        break;
      case 'typealias':
        type(item.name, { kind: 'alias', decl: item });
        break;
      case 'mod': {
        const inner = new Frame(frame);
        type(item.name, { kind: 'mod', decl: item, frame: inner });
        collectItems(item.items, inner, hooks);
        break;
      }
      case 'trait':
      case 'impl':
        // Parsed and kept; they carry no meaning yet.
        break;
    }
    if (item.kind !== 'extern') hooks.declared(item, frame);
  }
}
