import { describe, expect, it } from 'vitest';
import { createToolIndex, ownName, type SearchableTool } from '../../../src/core/search/index.js';

const NO_INPUT = { type: 'object', properties: {} };

function tool(name: string, description: string, extra: Partial<SearchableTool> = {}): SearchableTool {
  return { name, description, inputSchema: NO_INPUT, ...extra };
}

const names = (tools: SearchableTool[], query: string, limit?: number) =>
  createToolIndex(tools)
    .search(query, limit)
    .map((h) => h.name);

// Each text rule is checked by a pair of tools that tie (or lose, by name) without the rule, so the
// expected tool comes first only because of it.
describe('text rules change the ranking', () => {
  it('name splitting: camelCase, snake_case, kebab-case and dotted names match their words', () => {
    const tools = [
      tool('a_echo', 'Lists whatever directory input it gets.'),
      tool('zListDirectory', 'Shows entries.'),
    ];
    expect(names(tools, 'list directory')[0]).toBe('zListDirectory');
    const dotted = [tool('a_other', 'Shows a workspace.'), tool('z.workspace.archive', 'Does it.')];
    expect(names(dotted, 'archive workspace')[0]).toBe('z.workspace.archive');
  });

  it('name coverage: the tool whose own name the request says beats one whose namespace says it', () => {
    // The same words in every field, so BM25 ties them (and the name order puts a_ first); only
    // the last `__` segment differs: the tool's own name, which the request spells out.
    const tools = [
      tool('mcp__archive__records', 'Keeps them.'),
      tool('mcp__records__archive', 'Keeps them.'),
    ];
    expect(names(tools, 'archive')[0]).toBe('mcp__records__archive');
  });

  it("a tool's own name is what follows its last __, or the whole name without a namespace", () => {
    expect(ownName('mcp__github__create_issue')).toBe('create_issue');
    expect(ownName('read')).toBe('read');
    expect(ownName('weather_forecast')).toBe('weather_forecast');
  });

  it('stemming: "archiving records" finds the tool that "archives old records"', () => {
    const tools = [tool('tool_a', 'Prints old records.'), tool('tool_z', 'Archives old records.')];
    expect(names(tools, 'archiving records')[0]).toBe('tool_z');
  });

  it('synonyms and abbreviations: "rm" finds remove, "pull request" finds PR, "dir" finds folder', () => {
    const entries = [tool('add_entry', 'Adds an entry.'), tool('remove_entry', 'Removes an entry.')];
    expect(names(entries, 'rm entry')[0]).toBe('remove_entry');
    const prs = [tool('a_open_branch', 'Opens a branch.'), tool('z_open_pr', 'Opens a PR.')];
    expect(names(prs, 'open a pull request')[0]).toBe('z_open_pr');
    const folders = [tool('a_zip_file', 'Zips a file.'), tool('z_zip_folder', 'Zips a folder.')];
    expect(names(folders, 'zip the dir')[0]).toBe('z_zip_folder');
  });

  it('an idiom finds the act it means: "file a bug" creates an issue, and the pair ranks it first', () => {
    // Both tools speak of issues and of creating; only create_issue says the pair the idiom means.
    const tools = [
      tool('a_list_issues', 'Lists issues, and creates a report of them.'),
      tool('z_create_issue', 'Creates an issue.'),
    ];
    expect(names(tools, 'file a bug: the login page crashes')[0]).toBe('z_create_issue');
  });

  it('a question finds the tool that gets: "what did reviewers say" reads the reviews', () => {
    const tools = [tool('a_post_review', 'Posts a review.'), tool('z_get_reviews', 'Gets the reviews.')];
    expect(names(tools, 'what did reviewers say on PR 8')[0]).toBe('z_get_reviews');
  });
});

describe('fields', () => {
  it('finds a tool whose only match is a parameter description, nested in arrays and objects', () => {
    const inspect = tool('inspect', 'Looks at one thing.', {
      inputSchema: {
        type: 'object',
        properties: {
          filters: {
            type: 'array',
            items: {
              type: 'object',
              properties: { tint: { type: 'string', description: 'Paint shade to match' } },
            },
          },
        },
      },
    });
    const tools = [tool('other', 'Does something else.'), inspect];
    expect(names(tools, 'shade')).toEqual(['inspect']);
  });

  it("finds a tool by a parameter's enum value, nested in array items too", () => {
    const convert = tool('convert', 'Turns one thing into another.', {
      inputSchema: {
        type: 'object',
        properties: {
          format: { type: 'string', enum: ['webp', 'avif'] },
          extras: { type: 'array', items: { type: 'string', enum: ['grayscale'] } },
        },
      },
    });
    const tools = [tool('other', 'Does something else.'), convert];
    expect(names(tools, 'avif')).toEqual(['convert']);
    expect(names(tools, 'grayscale')).toEqual(['convert']);
  });

  it('adjacent words of the description count as a pair, as the query says them', () => {
    // The same words in both descriptions (a tie, won by name); only z's says "close issue".
    const tools = [
      tool('tool_a', 'Issue labels; close windows.'),
      tool('tool_z', 'Close issues; label windows.'),
    ];
    expect(names(tools, 'close issue')[0]).toBe('tool_z');
  });

  it('finds a tool by a parameter name', () => {
    const tools = [
      tool('a_lookup', 'Looks up.'),
      tool('z_lookup', 'Looks up.', { inputSchema: { properties: { sha: {} } } }),
    ];
    expect(names(tools, 'lookup by sha')[0]).toBe('z_lookup');
  });

  it('a query naming the server or plugin ranks its tools first', () => {
    const tools = [
      tool('a_post', 'Posts a note.', { owner: 'mcp:github' }),
      tool('z_post', 'Posts a note.', { owner: 'mcp:slack' }),
    ];
    expect(names(tools, 'post a note on slack')[0]).toBe('z_post');
    expect(names(tools, 'post a note on github')[0]).toBe('a_post');
  });

  it('the owner kind prefix (mcp:, plugin:) matches nothing by itself', () => {
    const tools = [tool('a_post', 'Posts.', { owner: 'plugin:slack' })];
    expect(names(tools, 'plugin')).toEqual([]);
  });

  it('an exact tool name in the query wins over better word matches', () => {
    const tools = [
      tool('browser_click', 'Does it.'),
      tool('a_browser_click_button', 'Click in the browser: clicks a browser button.', {
        title: 'Browser click',
      }),
    ];
    expect(names(tools, 'browser_click')[0]).toBe('browser_click');
  });
});

describe('determinism', () => {
  it('ties are broken by name and the order of the tools does not matter', () => {
    const tools = ['delta', 'alpha', 'charlie', 'bravo'].map((n) => tool(`${n}_copy`, 'Copies a record.'));
    expect(names(tools, 'copy record', 10)).toEqual([
      'alpha_copy',
      'bravo_copy',
      'charlie_copy',
      'delta_copy',
    ]);
    const reversed = [...tools].reverse();
    expect(createToolIndex(reversed).search('copy record', 10)).toEqual(
      createToolIndex(tools).search('copy record', 10),
    );
  });

  it('returns at most limit hits, best first', () => {
    const tools = Array.from({ length: 20 }, (_, i) => tool(`copy_${String(i).padStart(2, '0')}`, 'Copies.'));
    const hits = createToolIndex(tools).search('copy', 3);
    expect(hits.map((h) => h.name)).toEqual(['copy_00', 'copy_01', 'copy_02']);
    expect(createToolIndex(tools).search('copy').length).toBe(5);
  });
});

describe('odd queries give a clear empty result and never throw', () => {
  const index = createToolIndex([
    tool('read_file', 'Reads a file.'),
    tool('list_directory', 'Lists a folder.'),
  ]);

  it.each([
    ['empty', ''],
    ['only spaces', '   \n\t'],
    ['only punctuation', '?!.,;:-'],
    ['regex characters', '.*+?()[]{}|\\^$'],
    ['only stop words', 'the of and'],
    ['unknown words', 'xylophone quokka'],
  ])('%s', (_label, query) => {
    expect(index.search(query)).toEqual([]);
  });

  it('a 10 KB query is searched (its start) without throwing', () => {
    const long = `read the file ${'lorem ipsum '.repeat(900)}`;
    expect(long.length).toBeGreaterThan(10_000);
    expect(index.search(long)[0]?.name).toBe('read_file');
  });

  it('limit 0, negative or not a number', () => {
    expect(index.search('read file', 0)).toEqual([]);
    expect(index.search('read file', -3)).toEqual([]);
    expect(index.search('read file', Number.NaN).length).toBeGreaterThan(0);
  });

  it('an empty catalogue and a tool with an odd schema', () => {
    expect(createToolIndex([]).search('read')).toEqual([]);
    const odd = tool('odd', 'Odd.', { inputSchema: { properties: { a: null, b: [1], c: { items: 'x' } } } });
    expect(createToolIndex([odd]).search('odd')[0]?.name).toBe('odd');
  });
});
