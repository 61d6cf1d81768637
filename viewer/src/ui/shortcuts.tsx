/** The page's keys, as the sheet lists them. */
const KEYS: [string, string][] = [
  ['/', 'search'],
  ['↑ ↓', 'previous / next row'],
  ['Page Up · Page Down', 'a screen up / down'],
  ['Home · End', 'first / last row'],
  ['e · Shift+E', 'next / previous failing call'],
  ['Esc', 'close the detail pane (or this sheet)'],
  ['?', 'this sheet'],
];

/**
 * The keyboard shortcuts, listed when `?` is pressed; Escape, `?` again or the close button put it away.
 *
 * @example {help ? <ShortcutSheet close={() => setHelp(false)} /> : null}
 */
export function ShortcutSheet({ close }: { close: () => void }) {
  return (
    <div class="shortcuts" role="dialog" aria-label="keyboard shortcuts">
      <header>
        <h2>Keyboard shortcuts</h2>
        <button type="button" class="close" aria-label="close" title="Close (Esc)" onClick={close}>
          ×
        </button>
      </header>
      <dl>
        {KEYS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
