import { useState } from 'preact/hooks';

/**
 * Copies text to the clipboard: the Clipboard API where the page may use it, else a hidden textarea and the old
 * copy command (a report opened from file:// in some browsers).
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Denied (no permission, no focus): fall through to the textarea.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** A small button that copies `text()` and says so for a moment. */
export function CopyButton({ text, label = 'Copy' }: { text: () => string; label?: string }) {
  const [state, setState] = useState<'idle' | 'done' | 'failed'>('idle');
  const onClick = async () => {
    const ok = await copyText(text());
    setState(ok ? 'done' : 'failed');
    setTimeout(() => setState('idle'), 1200);
  };
  return (
    <button type="button" class="copy" onClick={onClick} title={`${label} to the clipboard`}>
      {state === 'done' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}
