import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { type Finder, pieces } from '../data/highlight.js';

/**
 * The search's matches marked where people read: timeline and call rows, the detail pane's JSON and text. The finder
 * comes down through context, so a JSON tree marks matches without every level passing it on.
 */
export const FindContext = createContext<Finder | undefined>(undefined);

/**
 * A text with the search's matches in `<mark>`; the text alone when there is no search or no match.
 *
 * @example <Marked text={rowTitle(row)} find={find} />
 */
export function Marked({ text, find }: { text: string; find?: Finder | undefined }) {
  const context = useContext(FindContext);
  const finder = find ?? context;
  if (!finder || text === '') return <>{text}</>;
  const ranges = finder(text);
  if (ranges.length === 0) return <>{text}</>;
  return (
    <>
      {pieces(text, ranges).map((piece, i) =>
        piece.hit ? (
          <mark key={i} class="hit">
            {piece.text}
          </mark>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}

/** Where the first match in `text` starts, or -1 (a long string shown cut opens when its match is past the cut). */
export function useFirstMatch(text: string): number {
  const finder = useContext(FindContext);
  return finder ? (finder(text)[0]?.[0] ?? -1) : -1;
}
