import type { Json } from 'mcp-tapedeck/trace';
import { base64Bytes } from 'mcp-tapedeck/trace';
import type { ComponentChild } from 'preact';
import { formatBytes } from '../data/summary.js';
import { Marked } from './highlight.js';

type JsonRecord = { [key: string]: Json };

function isRecord(value: Json | undefined): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** A data: URL for base64 media, only for media types a browser shows safely in an img/audio element. */
function mediaUrl(
  kind: 'image' | 'audio',
  mime: Json | undefined,
  data: Json | undefined,
): string | undefined {
  if (typeof mime !== 'string' || typeof data !== 'string') return undefined;
  if (!new RegExp(`^${kind}/[a-z0-9.+-]+$`, 'i').test(mime)) return undefined;
  if (!BASE64.test(data.length > 4096 ? data.slice(0, 4096) : data)) return undefined;
  return `data:${mime};base64,${data.replace(/\s+/g, '')}`;
}

/** A link people can follow: only http(s); anything else (file:, custom schemes) is shown as text. */
function ResourceLink({ uri, name }: { uri: string; name?: string | undefined }) {
  const label = name && name !== uri ? `${name} — ${uri}` : uri;
  if (/^https?:\/\//i.test(uri)) {
    return (
      <a class="res-link" href={uri} target="_blank" rel="noopener noreferrer">
        {label}
      </a>
    );
  }
  return <code class="res-link">{label}</code>;
}

/** One MCP content item: text, an image or audio from base64, a resource link, an embedded resource. */
export function ContentItem({ item }: { item: Json }): ComponentChild {
  if (!isRecord(item)) return null;
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? (
        <pre class="c-text">
          <Marked text={item.text} />
        </pre>
      ) : null;
    case 'image': {
      const url = mediaUrl('image', item.mimeType, item.data);
      if (!url) return null;
      const size = formatBytes(base64Bytes(String(item.data)));
      return (
        <figure class="c-image">
          <img src={url} alt={`tool result content, ${String(item.mimeType)}`} />
          <figcaption>
            {String(item.mimeType)} · {size}
          </figcaption>
        </figure>
      );
    }
    case 'audio': {
      const url = mediaUrl('audio', item.mimeType, item.data);
      return url ? (
        <figure class="c-audio">
          {/* biome-ignore lint/a11y/useMediaCaption: recorded audio has no captions to offer */}
          <audio controls src={url} />
          <figcaption>{String(item.mimeType)}</figcaption>
        </figure>
      ) : null;
    }
    case 'resource_link':
      return typeof item.uri === 'string' ? (
        <div class="c-link">
          <span class="badge">link</span>{' '}
          <ResourceLink uri={item.uri} name={typeof item.name === 'string' ? item.name : undefined} />
        </div>
      ) : null;
    case 'resource': {
      const resource = isRecord(item.resource) ? item.resource : {};
      const uri = typeof resource.uri === 'string' ? resource.uri : '';
      const image = mediaUrl('image', resource.mimeType, resource.blob);
      return (
        <div class="c-resource">
          <div>
            <span class="badge">resource</span> <ResourceLink uri={uri} />
          </div>
          {typeof resource.text === 'string' ? <pre class="c-text">{resource.text}</pre> : null}
          {image ? <img src={image} alt={`resource ${uri}`} /> : null}
        </div>
      );
    }
    default:
      return null;
  }
}

/**
 * The content items found in a result or notification (`content`, `contents`, prompt `messages[].content`,
 * sampling `content`), rendered for people. Nothing when there are none.
 */
export function ContentList({ value }: { value: Json | undefined }) {
  const items = contentItems(value);
  if (items.length === 0) return null;
  return (
    <div class="content-list">
      {items.map((item, i) => (
        <ContentItem key={i} item={item} />
      ))}
    </div>
  );
}

export function contentItems(value: Json | undefined): Json[] {
  if (!isRecord(value)) return [];
  const out: Json[] = [];
  if (Array.isArray(value.content)) out.push(...value.content);
  else if (isRecord(value.content)) out.push(value.content);
  if (Array.isArray(value.contents)) {
    for (const c of value.contents) if (isRecord(c)) out.push({ type: 'resource', resource: c });
  }
  if (Array.isArray(value.messages)) {
    for (const m of value.messages) if (isRecord(m) && isRecord(m.content)) out.push(m.content);
  }
  return out;
}
