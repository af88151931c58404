// The servers' own requests inside a real VS Code, answered through the real handlers: roots/list
// (the workspace folders; list_changed is in requests-roots.test.ts), sampling/createMessage (consent per
// server remembered, a model of the test's own; the real vscode.lm has no model here, which must be
// a clear error), and elicitation/create in form mode (every field type, defaults, review, accept,
// decline, cancel) and URL mode. The servers are real (server-everything, good-server, rich-server);
// only the person and the language model are scripted.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CallToolResult } from '../../src/protocol/schemas';
import type { ToolsTestHook } from '../../src/vscode/usage/tools';
import { server, waitFor, within } from './helpers';
import { KEEP, ScriptedModel, usageSuite, type Question } from './usagePrompter';

function textOf(result: CallToolResult): string {
  return result.content.map((b) => (b.type === 'text' ? (b as unknown as { text: string }).text : '')).join('\n');
}

describe("The servers' own requests in a real VS Code", function () {
  this.timeout(60_000);
  const config = () => vscode.workspace.getConfiguration('mcpHost');
  const suite = usageSuite('tools', async () => {
    await vscode.commands.executeCommand('mcpHost.resetSamplingConsent');
  });

  /** Calls a tool; a JSON-RPC error comes back as its message, so both paths can be checked. */
  async function call(serverName: string, tool: string, args: Record<string, unknown> = {}): Promise<string> {
    try {
      return textOf(await server(suite.api, serverName).client!.callTool(tool, args));
    } catch (err) {
      return `error: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** rich-server's `ask` tool: sends any request to us and returns our answer (or error) as JSON. */
  async function ask(method: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
    return JSON.parse(await call('rich', 'ask', { method, params })) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  }

  beforeEach(() => {
    suite.person.always('sampling.reset', undefined);
  });

  afterEach(() => {
    suite.hooks.setSamplingModel(undefined);
  });

  after(async () => {
    await vscode.commands.executeCommand('mcpHost.resetSamplingConsent');
  });

  it('declares roots, sampling and elicitation (form and URL) to every server', () => {
    for (const name of ['good', 'everything']) {
      const caps = server(suite.api, name).client!.clientCapabilities;
      assert.deepEqual(caps.roots, { listChanged: true });
      assert.deepEqual(caps.sampling, {});
      assert.deepEqual(caps.elicitation, { form: {}, url: {} });
    }
    const tools = server(suite.api, 'everything').lists.tools.map((t) => t.name);
    for (const t of ['get-roots-list', 'trigger-sampling-request', 'trigger-elicitation-request', 'trigger-url-elicitation']) assert.ok(tools.includes(t), t);
  });

  describe('roots', () => {
    it('roots/list answers with the workspace folders', async () => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name }));
      assert.equal(folders.length, 1);
      assert.match(folders[0].uri, /^file:\/\/.*\/test\/integration\/workspace$/);
      assert.deepEqual(JSON.parse(await call('good', 'ask-roots')), folders);
      const listed = await call('everything', 'get-roots-list');
      assert.match(listed, /Current MCP Roots \(1 total\)/);
      assert.ok(listed.includes(folders[0].uri), listed);
    });
  });

  describe('sampling', () => {
    it('without a language model in VS Code, the server gets a clear error and nobody is asked', async () => {
      const text = await call('everything', 'trigger-sampling-request', { prompt: 'Hello?', maxTokens: 10 });
      assert.match(text, /no language model available/i);
      assert.match(text, /vscode\.lm/);
      assert.equal(suite.person.asked.length, 0, 'no consent asked when there is nothing to use');
      const log = suite.api.controller.recentLog(server(suite.api, 'everything').id).join('\n');
      assert.match(log, /no language model available/);
    });

    it('with consent, the request goes to the model and its answer back to the server', async () => {
      const model = new ScriptedModel((r) => `echo: ${r.messages[r.messages.length - 1].text}`);
      suite.hooks.setSamplingModel(model);
      suite.person.once('sampling.consent', (q) => {
        assert.ok(q.method === 'message');
        assert.equal(q.severity, 'warning');
        assert.equal(q.options.modal, true);
        assert.match(q.text, /"everything" wants to use a language model/);
        assert.match(q.options.detail ?? '', /Test Model \(integration tests\), at most 20 tokens, temperature 0\.7/);
        assert.match(q.options.detail ?? '', /System prompt: You are a helpful test server\./);
        assert.match(q.options.detail ?? '', /User: Resource trigger-sampling-request context: What is 2\+2\?/);
        assert.deepEqual(q.buttons, ['Allow Once', 'Always Allow', 'Deny', 'Deny All from This Server for Now']);
        return 'Allow Once';
      });
      const text = await call('everything', 'trigger-sampling-request', { prompt: 'What is 2+2?', maxTokens: 20 });
      assert.match(text, /LLM sampling result/);
      const result = JSON.parse(text.slice(text.indexOf('{'))) as Record<string, unknown>;
      assert.deepEqual(result, {
        role: 'assistant',
        content: { type: 'text', text: 'echo: Resource trigger-sampling-request context: What is 2+2?' },
        model: 'test-model-1',
        stopReason: 'endTurn',
      });
      assert.equal(model.requests.length, 1);
      assert.equal(model.requests[0].systemPrompt, 'You are a helpful test server.');
      assert.equal(model.requests[0].maxTokens, 20);
      assert.equal(model.requests[0].serverName, 'everything');
    });

    it('denied: the server gets "User rejected sampling request" (-1) and the model is not called', async () => {
      const model = new ScriptedModel(() => 'never');
      suite.hooks.setSamplingModel(model);
      suite.person.once('sampling.consent', 'Deny');
      const answer = await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
      assert.deepEqual(answer.error, { code: -1, message: 'User rejected sampling request' });
      suite.person.once('sampling.consent', undefined);
      const dismissed = await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
      assert.equal(dismissed.error?.code, -1, 'closing the dialog denies too');
      assert.equal(model.requests.length, 0);
    });

    it('"Always Allow" is remembered per server until Reset Sampling Consent', async () => {
      const model = new ScriptedModel(() => 'ok');
      suite.hooks.setSamplingModel(model);
      const request = { messages: [{ role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }], maxTokens: 5, modelPreferences: { hints: [{ name: 'claude' }] } };
      suite.person.once('sampling.consent', 'Always Allow');
      assert.equal((await ask('sampling/createMessage', request)).result?.model, 'test-model-1');
      assert.equal((await ask('sampling/createMessage', request)).result?.model, 'test-model-1');
      assert.equal(suite.person.questions('sampling.consent').length, 1, 'asked once for rich-server');
      assert.match(model.requests[0].messages[0].text, /^one\n\[image image\/png, 3 bytes/);
      assert.deepEqual(model.requests[0].hints, ['claude']);
      // Another server is still asked.
      suite.person.once('sampling.consent', 'Deny');
      assert.match(await call('everything', 'trigger-sampling-request', { prompt: 'x', maxTokens: 5 }), /User rejected sampling request/);
      const forgotten = await vscode.commands.executeCommand<string[]>('mcpHost.resetSamplingConsent');
      assert.deepEqual(forgotten, ['rich']);
      suite.person.once('sampling.consent', 'Deny');
      assert.equal((await ask('sampling/createMessage', request)).error?.code, -1, 'asked again after the reset');
      assert.equal(suite.person.questions('sampling.consent').length, 3);
    });

    it('a malformed request is -32602', async () => {
      suite.hooks.setSamplingModel(new ScriptedModel(() => 'x'));
      const answer = await ask('sampling/createMessage', { maxTokens: 5 });
      assert.equal(answer.error?.code, -32602);
      assert.match(answer.error?.message ?? '', /messages/);
    });
  });

  describe('elicitation', () => {
    /** Answers server-everything's form: every field type, some defaults kept, one field changed in the review. */
    function answerEverythingForm(): void {
      suite.person.once('elicitation.start', (q) => {
        assert.ok(q.method === 'pick');
        assert.match(q.options.title ?? '', /"everything"/, 'the server is named');
        assert.equal(q.options.placeHolder, 'Please provide inputs for the following fields:');
        return /Answer/;
      });
      suite.person.once('elicitation.field:name', (q) => {
        assert.ok(q.method === 'input');
        assert.match(q.options.validate?.('') ?? '', /required/);
        return 'Ada Lovelace';
      });
      suite.person.once('elicitation.field:check', 'Yes');
      suite.person.once('elicitation.field:firstLine', (q) => {
        assert.ok(q.method === 'input');
        assert.equal(q.options.value, 'It was a dark and stormy night.', 'the default is filled in');
        return KEEP;
      });
      suite.person.once('elicitation.field:email', (q) => {
        assert.ok(q.method === 'input');
        assert.match(q.options.validate?.('not-an-email') ?? '', /email/);
        return 'ada@example.com';
      });
      suite.person.once('elicitation.field:homepage', (q) => {
        assert.ok(q.method === 'input');
        assert.ok(q.options.validate?.('no uri'), 'a URI is checked');
        return 'https://ada.example.com/';
      });
      suite.person.once('elicitation.field:birthdate', (q) => {
        assert.ok(q.method === 'input');
        assert.ok(q.options.validate?.('10/12/1815'), 'a date is checked');
        return '1815-12-10';
      });
      suite.person.once('elicitation.field:integer', (q) => {
        assert.ok(q.method === 'input');
        assert.equal(q.options.value, '42');
        assert.match(q.options.validate?.('4.5') ?? '', /whole/);
        assert.match(q.options.validate?.('101') ?? '', /At most 100/);
        return KEEP;
      });
      suite.person.once('elicitation.field:number', (q) => {
        assert.ok(q.method === 'input');
        assert.equal(q.options.value, '3.14');
        return KEEP;
      });
      suite.person.once('elicitation.field:untitledSingleSelectEnum', (q) => {
        assert.ok(q.method === 'pick');
        assert.equal(q.options.active?.label, 'Monica', 'the default is the active item');
        return q.options.active;
      });
      suite.person.once('elicitation.field:untitledMultipleSelectEnum', (q) => {
        assert.ok(q.method === 'pickMany');
        assert.deepEqual(q.options.selected?.map((i) => i.label), ['Guitar']);
        return 'keep';
      });
      suite.person.once('elicitation.field:titledSingleSelectEnum', 'Wonder Woman');
      suite.person.once('elicitation.field:titledMultipleSelectEnum', ['Tuna', 'Trout']);
      suite.person.once('elicitation.field:legacyTitledEnum', 'Dogs');
      suite.person.once('elicitation.review', (q) => {
        assert.ok(q.method === 'pick');
        const shown = Object.fromEntries(q.items.map((i) => [i.label, i.description]));
        assert.equal(shown['String *'], 'Ada Lovelace');
        assert.equal(shown['Integer'], '42');
        assert.equal(shown['Titled Multiple Select Enum'], 'Tuna, Trout');
        return 'Integer';
      });
      suite.person.once('elicitation.field:integer', '7');
      suite.person.once('elicitation.review', /Send/);
    }

    it('form mode: every field type in quick inputs, defaults applied, reviewed and accepted', async () => {
      answerEverythingForm();
      const text = await call('everything', 'trigger-elicitation-request');
      assert.match(text, /✅ User provided the requested information!/);
      assert.match(text, /- Name: Ada Lovelace/);
      assert.match(text, /- Favorite Integer: 7/);
      assert.match(text, /- Favorite Number: 3\.14/);
      const raw = JSON.parse(text.slice(text.indexOf('{'))) as { action: string; content: Record<string, unknown> };
      assert.equal(raw.action, 'accept');
      assert.deepEqual(raw.content, {
        name: 'Ada Lovelace',
        check: true,
        firstLine: 'It was a dark and stormy night.',
        email: 'ada@example.com',
        homepage: 'https://ada.example.com/',
        birthdate: '1815-12-10',
        integer: 7,
        number: 3.14,
        untitledSingleSelectEnum: 'Monica',
        untitledMultipleSelectEnum: ['Guitar'],
        titledSingleSelectEnum: 'hero-3',
        titledMultipleSelectEnum: ['fish-1', 'fish-3'],
        legacyTitledEnum: 'pet-2',
      });
      const log = suite.api.controller.recentLog(server(suite.api, 'everything').id).join('\n');
      assert.match(log, /Elicitation \(form\): the user chose accept/);
    });

    it('form mode in the schema-form webview (mcpHost.elicitation.form = "webview"): defaults filled in; Send and Decline', async () => {
      const tools = (await vscode.commands.executeCommand<ToolsTestHook>('mcpHost.tools.testHook'))!;
      await config().update('elicitation.form', 'webview', vscode.ConfigurationTarget.Global);
      try {
        const sent = call('everything', 'trigger-elicitation-request');
        const form = await waitFor(() => tools.forms().find((f) => f.title === 'everything asks'), 'the elicitation form');
        await within(form.ready, 35_000, 'the form page to say ready');
        const shown = await form.snapshot();
        assert.ok(shown.fields.some((f) => f.path === '/name'), 'a field for "name"');
        assert.equal((shown.value as Record<string, unknown>).integer, 42, 'defaults filled in');
        await form.fill('/name', 'Grace Hopper');
        await form.press('submit');
        const text = await sent;
        const raw = JSON.parse(text.slice(text.indexOf('{'))) as { action: string; content: Record<string, unknown> };
        assert.equal(raw.action, 'accept');
        assert.equal(raw.content.name, 'Grace Hopper');
        assert.equal(raw.content.firstLine, 'It was a dark and stormy night.');
        assert.equal(raw.content.integer, 42);
        assert.equal(raw.content.titledSingleSelectEnum, 'hero-1');
        assert.deepEqual(raw.content.untitledMultipleSelectEnum, ['Guitar']);

        const declined = call('everything', 'trigger-elicitation-request');
        const again = await waitFor(() => tools.forms().find((f) => f.title === 'everything asks'), 'the second form');
        await within(again.ready, 35_000, 'the form page to say ready');
        await again.press('decline');
        assert.match(await declined, /❌ User declined to provide the requested information\./);
        assert.equal(suite.person.asked.length, 0, 'no quick input in this mode');
      } finally {
        await config().update('elicitation.form', undefined, vscode.ConfigurationTarget.Global);
      }
    });

    it('form mode: decline and cancel', async () => {
      suite.person.once('elicitation.start', /Decline/);
      assert.match(await call('everything', 'trigger-elicitation-request'), /❌ User declined to provide the requested information\./);
      suite.person.once('elicitation.start', undefined);
      assert.match(await call('everything', 'trigger-elicitation-request'), /⚠️ User cancelled the elicitation dialog\./);
      // Escape half-way through the fields cancels too; declining from the review is a decline.
      suite.person.once('elicitation.start', /Answer/);
      suite.person.once('elicitation.field:name', undefined);
      assert.match(await call('everything', 'trigger-elicitation-request'), /⚠️ User cancelled/);
      suite.person.once('elicitation.start', /Answer/);
      suite.person.always('elicitation.field:*', (q: Question) => (q.method === 'input' ? (q.options.value || 'x@example.com') : q.method === 'pickMany' ? 'keep' : q.method === 'pick' ? q.items[0] : undefined));
      suite.person.once('elicitation.field:birthdate', '2000-01-01');
      suite.person.once('elicitation.field:homepage', 'https://x.example/');
      suite.person.once('elicitation.review', /Decline/);
      assert.match(await call('everything', 'trigger-elicitation-request'), /❌ User declined/);
    });

    it('"Decline All from This Server for Now": its further questions (elicitation, sampling) are declined unasked until it restarts', async () => {
      suite.hooks.setSamplingModel(new ScriptedModel(() => 'never'));
      suite.person.once('elicitation.start', /Decline All from This Server/);
      assert.match(await call('everything', 'trigger-elicitation-request'), /❌ User declined/);
      const asked = suite.person.asked.length;
      assert.match(await call('everything', 'trigger-elicitation-request'), /❌ User declined/);
      assert.match(await call('everything', 'trigger-sampling-request', { prompt: 'x', maxTokens: 5 }), /User rejected sampling request/);
      assert.equal(suite.person.asked.length, asked, 'nobody was asked');
      const log = suite.api.controller.recentLog(server(suite.api, 'everything').id).join('\n');
      assert.match(log, /declined without asking/);
      // Another server is still asked.
      suite.person.once('sampling.consent', 'Deny');
      assert.equal((await ask('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })).error?.code, -1);
      assert.equal(suite.person.asked.length, asked + 1);
      // Restarted, it is asked again.
      await server(suite.api, 'everything').restart();
      suite.person.once('elicitation.start', /^\$\(circle-slash\) Decline$/);
      assert.match(await call('everything', 'trigger-elicitation-request'), /❌ User declined/);
      assert.equal(suite.person.questions('elicitation.start').length, 2);
    });

    it('form mode: selection counts, optional fields left empty, and a send refused until the form is complete', async () => {
      const requestedSchema = {
        type: 'object',
        properties: {
          tags: { type: 'array', title: 'Tags', minItems: 2, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
          when: { type: 'string', format: 'date-time', title: 'When' },
          ok: { type: 'boolean', title: 'OK?', default: true },
          note: { type: 'string', title: 'Note', maxLength: 5 },
          size: { type: 'number', title: 'Size', minimum: 1 },
        },
        required: ['tags', 'size'],
      };
      suite.person.once('elicitation.start', /Answer/);
      suite.person.once('elicitation.field:tags', ['a']);
      suite.person.once('elicitation.field:tags', (q) => {
        assert.ok(q.method === 'pickMany');
        assert.match(q.options.placeHolder ?? '', /Choose at least 2/);
        return ['a', 'c'];
      });
      suite.person.once('elicitation.field:when', (q) => {
        assert.ok(q.method === 'input');
        assert.ok(q.options.validate?.('2024-13-01T00:00:00Z'), 'month 13 refused');
        assert.equal(q.options.validate?.('2024-02-29T10:30:00+02:00'), undefined);
        return '';
      });
      suite.person.once('elicitation.field:ok', (q) => {
        assert.ok(q.method === 'pick');
        assert.equal(q.options.active?.label, 'Yes');
        return /No answer/;
      });
      suite.person.once('elicitation.field:note', (q) => {
        assert.ok(q.method === 'input');
        assert.match(q.options.validate?.('toolong') ?? '', /At most 5/);
        return 'hi';
      });
      suite.person.once('elicitation.field:size', '2');
      suite.person.once('elicitation.review', /Send/);
      const answer = await ask('elicitation/create', { message: 'Tell me', requestedSchema });
      assert.deepEqual(answer.result, { action: 'accept', content: { tags: ['a', 'c'], note: 'hi', size: 2 } });
    });

    it('an unsupported schema or mode is -32602, before anyone is asked', async () => {
      const nested = await ask('elicitation/create', { message: 'x', requestedSchema: { type: 'object', properties: { o: { type: 'object' } } } });
      assert.equal(nested.error?.code, -32602);
      assert.match(nested.error?.message ?? '', /property "o"/);
      assert.equal((await ask('elicitation/create', { mode: 'telepathy', message: 'x' })).error?.code, -32602);
      assert.equal((await ask('elicitation/create', { mode: 'url', message: 'x', url: 'javascript:alert(1)', elicitationId: '1' })).error?.code, -32602);
      assert.equal(suite.person.asked.length, 0);
    });

    it('URL mode: the full URL and its domain are shown, and it opens only after the person agrees', async () => {
      suite.person.once('elicitation.url', (q) => {
        assert.ok(q.method === 'message');
        assert.equal(q.options.modal, true);
        assert.match(q.text, /"everything" asks you to open a page on example\.com/);
        assert.match(q.options.detail ?? '', /Full URL: https:\/\/example\.com\/connect\?x=1/);
        assert.match(q.options.detail ?? '', /Domain: example\.com/);
        assert.deepEqual(q.buttons, ['Open', 'Decline', 'Decline All from This Server for Now']);
        return 'Open';
      });
      suite.person.once('openExternal', undefined);
      const text = await call('everything', 'trigger-url-elicitation', { url: 'https://example.com/connect?x=1', message: 'Connect your account' });
      assert.match(text, /✅ User completed the URL elicitation flow/);
      const opened = suite.person.questions('openExternal')[0];
      assert.ok(opened && opened.method === 'openExternal');
      assert.equal(opened.uri.toString(true), 'https://example.com/connect?x=1');

      suite.person.once('elicitation.url', (q) => {
        assert.ok(q.method === 'message');
        assert.match(q.options.detail ?? '', /Punycode/);
        return 'Decline';
      });
      assert.match(await call('everything', 'trigger-url-elicitation', { url: 'https://xn--pple-43d.example/' }), /❌ User declined to open the URL/);
      suite.person.once('elicitation.url', undefined);
      assert.match(await call('everything', 'trigger-url-elicitation', { url: 'https://example.com/' }), /⚠️ User cancelled the URL elicitation/);
      assert.equal(suite.person.questions('openExternal').length, 1, 'opened only once, when agreed');
    });
  });
});
