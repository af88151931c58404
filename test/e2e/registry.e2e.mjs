// A person who has never configured a server finds one in an MCP registry (the fixture registry,
// test/fixtures/registry) with Browse Servers…, adds it with its secret, and sees it run.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, chooseCommand, openViewContainer, treeItem } from '../../scripts/vscode-host/host.mjs';
import { RESULTS, flavourFromArgs, scenario } from './lib.mjs';

const flavour = flavourFromArgs();
const DEMO_MCP_JSON = join(REPO_ROOT, 'demo', '.vscode', 'mcp.json');

/** The fixture registry, in its own process, stopped when this script exits. */
async function startRegistry() {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test', 'fixtures', 'registry', 'registry.mjs')], { stdio: ['ignore', 'pipe', 'ignore'] });
  process.on('exit', () => child.kill('SIGTERM'));
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk.toString();
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (match) return match[1];
  }
  throw new Error(`the fixture registry did not start: ${out}`);
}

const registry = await startRegistry();
const original = readFileSync(DEMO_MCP_JSON, 'utf8');

await scenario(
  'registry',
  flavour,
  async ({ page, step }) => {
    const widget = page.locator('.quick-input-widget');
    try {
      await step('the MCP Host view opens', async () => {
        await openViewContainer(page, 'MCP Host', 30_000);
      });

      await step('Browse Servers… searches the registry while one types and shows what each server needs', async () => {
        await chooseCommand(page, 'MCP Host: Browse Servers…');
        await widget.locator('.quick-input-title', { hasText: 'Browse MCP Servers' }).waitFor({ state: 'visible', timeout: 15_000 });
        await widget.locator('input.input').fill('everything');
        await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Everything (with a key)' }).first().waitFor({ state: 'visible', timeout: 15_000 });
        await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'needs EVERYTHING_API_KEY (secret)' }).first().waitFor({ state: 'visible', timeout: 5_000 });
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(RESULTS, `browse-servers-${flavour}.png`) });
      });

      await step('Add: the folder, then the secret (a password box); the server starts in the tree', async () => {
        await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Everything (with a key)' }).first().click();
        await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'demo/.vscode/mcp.json' }).first().click();
        const secretBox = widget.locator('input[type="password"]');
        await secretBox.waitFor({ state: 'visible', timeout: 15_000 });
        await secretBox.fill('ek-e2e-3c9d1f');
        await secretBox.press('Enter');
        const row = treeItem(page, 'everything-with-key');
        await row.waitFor({ state: 'visible', timeout: 30_000 });
        await row.locator('.label-description', { hasText: /^running/ }).waitFor({ state: 'visible', timeout: 60_000 });
        const written = readFileSync(DEMO_MCP_JSON, 'utf8');
        if (written.includes('ek-e2e-3c9d1f')) throw new Error('the secret was written to mcp.json');
        if (!written.includes('${input:everything-with-key.EVERYTHING_API_KEY}')) throw new Error('the entry does not reference the input');
        await page.mouse.move(900, 500);
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(RESULTS, `registry-added-${flavour}.png`) });
      });
    } finally {
      writeFileSync(DEMO_MCP_JSON, original);
    }
  },
  { settings: { 'mcpHost.registries': [registry] } },
);
