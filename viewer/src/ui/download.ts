import type { ExportFile } from '../data/export.js';

/**
 * Hands a file to the user as a download: a Blob behind an object URL, clicked through a link with a file name,
 * released once the browser has it. Nothing leaves the page (a report's policy allows no network at all).
 *
 * @example download({ name: 'calls-filtered.jsonl', type: 'application/x-ndjson', text });
 */
export function download(file: ExportFile): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The click starts the download at once; a moment later the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
