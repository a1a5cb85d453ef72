// What cannot be vectorised is reported, not miscompiled: the analyses and the
// code generator throw this, and `vectorizeAll` turns it into a diagnostic at the
// `vectorize` call.
export class VectorizeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VectorizeError';
  }
}

export function unsupported(what: string): never {
  throw new VectorizeError(`cannot vectorise ${what}`);
}
