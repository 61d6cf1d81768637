import type { TraceModel } from '../data/model.js';

export interface DiffProps {
  model: TraceModel;
  version: number;
  params: Readonly<Record<string, string>>;
  set: (changes: Record<string, string | undefined>) => void;
}

export function DiffView({ model }: DiffProps) {
  if (model.sources.length < 2) return <p class="empty">Open two traces to compare them.</p>;
  return <p class="empty">Comparing…</p>;
}
