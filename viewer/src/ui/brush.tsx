import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { TimeRange } from '../data/waterfall.js';

export interface BrushProps {
  /** The times the element's left and right edges stand for. */
  range: TimeRange;
  /** A stretch was dragged out (at least a few pixels wide). */
  onPick: (range: TimeRange) => void;
  /** A double click: back to the whole trace. */
  onReset: () => void;
  class: string;
  label: string;
  children: ComponentChildren;
}

/** Below this many pixels a drag is a click, not a range. */
const MIN_DRAG_PX = 4;

/**
 * An element a range of time is dragged out on (the overview strip, the axis): drag to zoom to what was dragged,
 * double-click to see everything again. The dragged stretch shows while the pointer is down.
 */
export function Brush(props: BrushProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ a: number; b: number } | undefined>();
  const fraction = (clientX: number) => {
    const box = ref.current!.getBoundingClientRect();
    return Math.max(0, Math.min(1, (clientX - box.left) / Math.max(1, box.width)));
  };
  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0) return;
    (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
    const at = fraction(event.clientX);
    setDrag({ a: at, b: at });
  };
  const onPointerMove = (event: PointerEvent) => {
    if (drag) setDrag({ a: drag.a, b: fraction(event.clientX) });
  };
  const onPointerUp = () => {
    if (!drag) return;
    setDrag(undefined);
    const width = ref.current?.getBoundingClientRect().width ?? 0;
    const lo = Math.min(drag.a, drag.b);
    const hi = Math.max(drag.a, drag.b);
    if ((hi - lo) * width < MIN_DRAG_PX) return;
    const span = props.range.to - props.range.from;
    props.onPick({ from: props.range.from + lo * span, to: props.range.from + hi * span });
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dragging out a range is a pointer gesture; the Zoom buttons beside it are the keyboard way
    <div
      ref={ref}
      class={`brush ${props.class}`}
      data-label={props.label}
      title={`${props.label}: drag to zoom, double-click to see the whole trace`}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => setDrag(undefined)}
      onDblClick={props.onReset}
    >
      {props.children}
      {drag ? (
        <span
          class="brush-drag"
          style={{
            left: `${Math.min(drag.a, drag.b) * 100}%`,
            width: `${Math.abs(drag.b - drag.a) * 100}%`,
          }}
        />
      ) : null}
    </div>
  );
}
