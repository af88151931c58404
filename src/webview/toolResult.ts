// The tool result page: shows a CallToolResult (or a resource read) block by block. Server text is
// rendered with markdown-it with raw HTML switched off (it is escaped), or as plain text; images and
// audio come as data: URIs; nothing from a server is ever parsed as HTML.
import MarkdownIt from 'markdown-it';
import type { ResultBlock, ResultFromWebview, ResultSnapshot, ResultToWebview, ResultViewModel } from '../vscode/webview/protocol';
import { append, describePointer, formatBytes, h, pageLoad, vscodeApi } from './dom';

const post = (message: ResultFromWebview) => vscodeApi.postMessage(message);
const app = document.getElementById('app') as HTMLElement;

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
// Links may only go where the host can open them safely; everything else stays plain text.
markdown.validateLink = (url: string) => /^(https?:|mailto:|#)/i.test(url.trim()) || /^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim()) && !/^(javascript|vbscript|data|file):/i.test(url.trim());

/** Above this size text is shown as plain text even if it looks like Markdown (rendering stays fast). */
const MARKDOWN_LIMIT = 256 * 1024;

let model: ResultViewModel | undefined;

function button(label: string, title: string, onClick: () => void, cls = 'secondary small'): HTMLButtonElement {
  const b = h('button', { type: 'button', class: cls, title }, label);
  b.addEventListener('click', onClick);
  return b;
}

function mediaType(mime: string, kind: 'image' | 'audio'): string | undefined {
  // Only well-formed types of the right kind go into a data: URI.
  return new RegExp(`^${kind}/[a-z0-9.+-]+$`, 'i').test(mime) ? mime.toLowerCase() : undefined;
}

function textBody(text: string, format: 'markdown' | 'json' | 'plain'): HTMLElement {
  if (format === 'markdown' && text.length <= MARKDOWN_LIMIT) {
    const div = h('div', { class: 'markdown' });
    // markdown-it with html:false escapes any HTML in the text; its own output is safe markup.
    div.innerHTML = markdown.render(text);
    return div;
  }
  if (format === 'json') {
    try {
      return h('pre', { class: 'json' }, JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      // fall through to plain text
    }
  }
  return h('pre', { class: 'plain' }, text);
}

function truncationNote(shown: number, total: number | undefined, index: number | 'structured'): HTMLElement | null {
  if (total === undefined) return null;
  return h(
    'div',
    { class: 'truncated', role: 'note' },
    `Showing the first ${formatBytes(shown)} of ${formatBytes(total)}. `,
    button('Show all in an editor', 'Open the complete text in an editor', () => post({ type: 'showAll', blockIndex: index }), 'link-button'),
  );
}

function audienceNote(audience: string[] | undefined, priority?: number): HTMLElement | null {
  const parts: string[] = [];
  if (audience && audience.length) parts.push(`for ${audience.join(' and ')}`);
  if (typeof priority === 'number') parts.push(`priority ${priority}`);
  return parts.length ? h('span', { class: 'annotation' }, parts.join(' · ')) : null;
}

function renderBlock(block: ResultBlock, index: number): HTMLElement {
  const section = h('section', { class: `block block-${block.kind}`, 'data-kind': block.kind, 'data-index': index });
  const head = h('div', { class: 'block-head' });
  const body = h('div', { class: 'block-body' });
  append(section, head, body);
  switch (block.kind) {
    case 'text': {
      let format = block.format;
      const label = h('span', { class: 'block-label' }, `Text${format === 'markdown' ? ' · Markdown' : format === 'json' ? ' · JSON' : ''}`);
      append(head, label, audienceNote(block.audience, block.priority), h('span', { class: 'spacer' }));
      if (block.format !== 'plain') {
        const toggle = button('Show source', 'Switch between the rendered text and its source', () => {
          format = format === 'plain' ? block.format : 'plain';
          toggle.textContent = format === 'plain' ? 'Show rendered' : 'Show source';
          body.replaceChildren(textBody(block.text, format), ...(block.truncatedFrom ? [truncationNote(block.text.length, block.truncatedFrom, index) as HTMLElement] : []));
        });
        append(head, toggle);
      }
      append(
        head,
        button('Copy', 'Copy this text', () => post({ type: 'copy', what: index })),
        button('Open in Editor', 'Open this text in an editor', () => post({ type: 'openInEditor', blockIndex: index })),
      );
      append(body, textBody(block.text, format), truncationNote(block.text.length, block.truncatedFrom, index));
      break;
    }
    case 'image':
    case 'audio': {
      const mime = mediaType(block.mimeType, block.kind);
      append(head, h('span', { class: 'block-label' }, `${block.kind === 'image' ? 'Image' : 'Audio'} · ${block.mimeType} · ${formatBytes(block.bytes)}`), audienceNote(block.audience), h('span', { class: 'spacer' }), button('Save…', 'Save to a file', () => post({ type: 'save', blockIndex: index })));
      if (!mime) {
        append(body, h('div', { class: 'notice' }, `Not shown: "${block.mimeType}" is not an ${block.kind} type.`));
      } else if (block.tooLarge) {
        append(body, h('div', { class: 'notice' }, `Too large to show here (${formatBytes(block.bytes)}); use Save….`));
      } else if (block.kind === 'image') {
        const img = h('img', { alt: `Image from the tool (${block.mimeType}, ${formatBytes(block.bytes)})`, class: 'result-image' });
        img.src = `data:${mime};base64,${block.data}`;
        append(body, img);
      } else {
        const audio = h('audio', { controls: true, preload: 'metadata', 'aria-label': `Audio from the tool (${block.mimeType})` });
        audio.src = `data:${mime};base64,${block.data}`;
        append(body, audio);
      }
      break;
    }
    case 'resource_link': {
      append(head, h('span', { class: 'block-label' }, 'Resource link'), h('span', { class: 'spacer' }));
      const link = h('a', { href: '#', class: 'resource-link', title: `Read ${block.uri}`, 'data-uri': block.uri }, block.title ?? block.name);
      link.addEventListener('click', (e) => {
        e.preventDefault();
        post({ type: 'openLink', uri: block.uri });
      });
      append(
        body,
        h('div', { class: 'link-line' }, link, ' ', h('code', { class: 'uri' }, block.uri)),
        block.description ? h('div', { class: 'link-description' }, block.description) : null,
        block.mimeType || block.size !== undefined ? h('div', { class: 'meta' }, [block.mimeType, block.size !== undefined ? formatBytes(block.size) : undefined].filter(Boolean).join(' · ')) : null,
      );
      break;
    }
    case 'resource': {
      append(head, h('span', { class: 'block-label' }, `Embedded resource${block.mimeType ? ` · ${block.mimeType}` : ''}`), h('span', { class: 'spacer' }));
      append(body, h('div', { class: 'link-line' }, h('code', { class: 'uri' }, block.uri)));
      if (block.text !== undefined) {
        append(head, button('Copy', 'Copy the text', () => post({ type: 'copy', what: index })), button('Open in Editor', 'Open the text in an editor', () => post({ type: 'openInEditor', blockIndex: index })));
        append(body, textBody(block.text, block.format ?? 'plain'), truncationNote(block.text.length, block.truncatedFrom, index));
      } else {
        append(head, button('Save…', 'Save to a file', () => post({ type: 'save', blockIndex: index })));
        const image = block.mimeType ? mediaType(block.mimeType, 'image') : undefined;
        const audio = block.mimeType ? mediaType(block.mimeType, 'audio') : undefined;
        if (block.tooLarge || !block.blob) {
          append(body, h('div', { class: 'notice' }, `Binary, ${formatBytes(block.bytes ?? 0)}${block.tooLarge ? ' (too large to show here)' : ''}.`));
        } else if (image) {
          const img = h('img', { alt: `Resource ${block.uri}`, class: 'result-image' });
          img.src = `data:${image};base64,${block.blob}`;
          append(body, img);
        } else if (audio) {
          const el = h('audio', { controls: true, preload: 'metadata' });
          el.src = `data:${audio};base64,${block.blob}`;
          append(body, el);
        } else {
          append(body, h('div', { class: 'notice' }, `Binary content, ${formatBytes(block.bytes ?? 0)}.`));
        }
      }
      break;
    }
    case 'unknown':
      append(head, h('span', { class: 'block-label' }, `Content of type "${block.type}" (not known to this version of MCP Host)`));
      append(body, h('pre', { class: 'json' }, block.json));
      break;
  }
  return section;
}

function render(m: ResultViewModel): void {
  model = m;
  app.removeAttribute('aria-busy');
  app.textContent = '';
  const statusText = {
    ok: m.resourceUri ? 'Read' : 'Success',
    'tool-error': 'Tool error (isError: true)',
    failed: 'Failed',
    cancelled: 'Cancelled',
  }[m.status];
  const title = m.resourceUri ? m.resourceUri : m.toolTitle && m.toolTitle !== m.tool ? `${m.toolTitle} (${m.tool})` : m.tool;
  const header = h(
    'header',
    { class: 'result-header' },
    h('h1', {}, title, h('span', { class: 'server' }, ` — ${m.server}`)),
    h(
      'div',
      { class: 'status-line' },
      h('span', { class: `status status-${m.status}`, role: 'status', id: 'status' }, statusText),
      h('span', { class: 'meta' }, `${new Date(m.startedAt).toLocaleTimeString()} · ${m.durationMs < 1000 ? `${m.durationMs} ms` : `${(m.durationMs / 1000).toFixed(1)} s`} · ${formatBytes(m.rawJsonBytes)}`),
      h('span', { class: 'spacer' }),
      m.resourceUri ? null : button('Run Again…', 'Run this tool again (the form opens with these arguments)', () => post({ type: 'runAgain' }), 'primary small'),
      button('Copy Result JSON', 'Copy the whole result as JSON', () => post({ type: 'copy', what: 'raw' })),
      button('Open Raw JSON', 'Open the whole result as JSON in an editor', () => post({ type: 'openInEditor', blockIndex: 'raw' })),
    ),
  );
  append(app, header);
  if (!m.resourceUri) {
    append(
      app,
      h(
        'details',
        { class: 'arguments' },
        h('summary', {}, 'Arguments'),
        h('div', { class: 'block-head' }, h('span', { class: 'spacer' }), button('Copy', 'Copy the arguments as JSON', () => post({ type: 'copy', what: 'arguments' }))),
        h('pre', { class: 'json' }, m.argumentsJson),
      ),
    );
  }
  if (m.errorMessage) append(app, h('div', { class: `error-box ${m.status === 'cancelled' ? 'muted' : ''}`, role: 'alert' }, m.errorMessage));
  if (m.status === 'tool-error') {
    append(app, h('div', { class: 'error-box', role: 'alert' }, 'The tool reported an error (isError: true). Its message is below.'));
  }
  if (m.blocks.length > 0) {
    append(app, h('h2', {}, m.resourceUri ? 'Contents' : `Content (${m.blocks.length} block${m.blocks.length === 1 ? '' : 's'})`));
    m.blocks.forEach((block, i) => append(app, renderBlock(block, i)));
  } else if (m.status === 'ok' || m.status === 'tool-error') {
    append(app, h('p', { class: 'empty' }, 'No content blocks.'));
  }
  if (m.structured) {
    const s = m.structured;
    const badge =
      s.check === 'valid'
        ? h('span', { class: 'check check-valid' }, '✓ Matches the outputSchema')
        : s.check === 'invalid'
          ? h('span', { class: 'check check-invalid', role: 'alert' }, '✗ Does not match the tool’s outputSchema')
          : s.check === 'unchecked'
            ? h('span', { class: 'check check-unchecked' }, `Not checked${s.note ? `: ${s.note}` : ''}`)
            : h('span', { class: 'check check-none' }, 'The tool declares no outputSchema');
    const section = h(
      'section',
      { class: 'block block-structured', 'data-kind': 'structured' },
      h('div', { class: 'block-head' }, h('span', { class: 'block-label' }, 'Structured content'), badge, h('span', { class: 'spacer' }), button('Copy JSON', 'Copy the structured content', () => post({ type: 'copy', what: 'structured' })), button('Open in Editor', 'Open the structured content in an editor', () => post({ type: 'openInEditor', blockIndex: 'structured' }))),
      s.issues.length ? h('ul', { class: 'issues' }, ...s.issues.map((i) => h('li', {}, `${describePointer(i.path)} ${i.message}`))) : null,
      // Checked, but some patterns were not (RE2 cannot run them): said beside the verdict.
      s.check !== 'unchecked' && s.note ? h('p', { class: 'check-note' }, s.note) : null,
      h('pre', { class: 'json' }, s.json),
      truncationNote(s.json.length, s.truncatedFrom, 'structured'),
    );
    append(app, h('h2', {}, 'Structured content'), section);
  }
  if (m.missingStructured) {
    append(app, h('div', { class: 'warning', role: 'alert' }, 'The tool declares an outputSchema, but the result has no structuredContent.'));
  }
  post({ type: 'rendered', runId: m.runId });
}

// Links inside rendered Markdown: the host opens them (http/https/mailto externally, others as resources).
app.addEventListener('click', (e) => {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || a.classList.contains('resource-link')) return;
  const href = a.getAttribute('href');
  if (!href || href.startsWith('#')) return;
  e.preventDefault();
  post({ type: 'openLink', uri: href });
});

function snapshot(): ResultSnapshot {
  return {
    runId: model?.runId ?? -1,
    title: document.title,
    html: app.innerHTML,
    text: app.innerText,
    blocks: [...app.querySelectorAll<HTMLElement>('section.block')].map((el) => ({ kind: el.dataset.kind ?? '', text: el.innerText, html: el.innerHTML })),
  };
}

window.addEventListener('message', (event: MessageEvent<ResultToWebview>) => {
  const message = event.data;
  if (message.type === 'show') render(message.model);
  else if (message.type === 'snapshot') post({ type: 'snapshot', requestId: message.requestId, snapshot: snapshot() });
});

post({ type: 'ready', load: pageLoad() });
