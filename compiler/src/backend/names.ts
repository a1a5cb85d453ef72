// LLVM identifiers: everything we name is sanitised to `[A-Za-z0-9_.]` and made
// unique within its namespace (module globals or one function's locals), so a
// user's identifiers can never collide with each other or with ours.

const plain = /^[A-Za-z$._][A-Za-z0-9$._-]*$/;

/** A symbol exactly as given (external linkage must keep its name), quoted when LLVM needs it. */
export function symbol(name: string): string {
  if (plain.test(name)) return name;
  return `"${[...name].map((ch) => (ch === '"' || ch === '\\' || ch < ' ' ? `\\${ch.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}` : ch)).join('')}"`;
}

export class NameTable {
  private readonly used = new Set<string>();
  /** Next suffix to try per base name, so a thousand `%add`s cost linear time. */
  private readonly next = new Map<string, number>();

  /** Claims `name` exactly; false when it is already taken. */
  claim(name: string): boolean {
    if (this.used.has(name)) return false;
    this.used.add(name);
    return true;
  }

  /** A fresh identifier derived from `hint`. */
  fresh(hint: string): string {
    const base = hint.replace(/[^A-Za-z0-9_.]/g, '_').replace(/^(?=[0-9])/, '_') || 'v';
    if (this.claim(base)) return base;
    for (let i = this.next.get(base) ?? 1; ; i++) {
      if (this.claim(`${base}.${i}`)) {
        this.next.set(base, i + 1);
        return `${base}.${i}`;
      }
    }
  }
}
