/**
 * Growable typed-array columns: a trace too big for the browser is indexed on the server a fact per column, a
 * row or a request per index, so a million rows cost tens of megabytes rather than a million objects.
 */

type TypedArray = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | Int16Array;
type TypedArrayConstructor<T extends TypedArray> = new (length: number) => T;

/**
 * One column of numbers, doubling its storage as it grows.
 *
 * @example const times = new Column(Float64Array); times.push(Date.now()); times.get(0);
 */
export class Column<T extends TypedArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly make: TypedArrayConstructor<T>,
    capacity = 1024,
  ) {
    this.data = new make(capacity);
  }

  push(value: number): number {
    if (this.length === this.data.length) this.grow();
    this.data[this.length] = value;
    return this.length++;
  }

  get(index: number): number {
    return this.data[index] as number;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /** The values written so far, without a copy (a view that a later push may leave behind). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  private grow(): void {
    const next = new this.make(this.data.length * 2);
    next.set(this.data as never);
    this.data = next;
  }
}

/**
 * Strings kept once each and named by a small number (methods, tool names, servers); 0 stands for none.
 *
 * @example const methods = new StringTable(); methods.id('tools/call') // → 1
 */
export class StringTable {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [''];

  id(name: string | undefined): number {
    if (name === undefined) return 0;
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
    }
    return id;
  }

  name(id: number): string | undefined {
    return id === 0 ? undefined : this.names[id];
  }

  /** The ids of the names that contain `part` (case-insensitive). */
  matching(part: string): Set<number> {
    const needle = part.toLowerCase();
    const out = new Set<number>();
    this.names.forEach((name, id) => {
      if (id > 0 && name.toLowerCase().includes(needle)) out.add(id);
    });
    return out;
  }
}
