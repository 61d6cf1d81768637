/**
 * A folder path in a message shortened to its last part: the page says which file, never where it sits on the disk
 * that served it (`/tmp/x/notes.md` → `notes.md`).
 *
 * @example withoutPaths('/srv/t/notes.md is in no format') // → 'notes.md is in no format'
 */
export function withoutPaths(text: string): string {
  return text.replace(/(?:[A-Za-z]:)?(?:[\\/][^\s\\/:'"`()]+)+[\\/]([^\s\\/:'"`()]+)/g, '$1');
}
