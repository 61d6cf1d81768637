/** JSON text nested `depth` levels deep — arrays (`[[…]]`) or objects (`{"k":{…}}`) — for the nesting limit's tests. */
export function nested(depth: number, kind: 'array' | 'object'): string {
  if (kind === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
  return `${'{"k":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
}
