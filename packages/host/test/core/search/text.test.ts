import { describe, expect, it } from 'vitest';
import { analyze, splitWords, stem } from '../../../src/core/search/index.js';

describe('splitWords', () => {
  it('splits snake_case, kebab-case, dotted names, camelCase, acronyms and digits, lowercased', () => {
    expect(splitWords('list_directory_with_sizes')).toEqual(['list', 'directory', 'with', 'sizes']);
    expect(splitWords('API-get-block-children')).toEqual(['api', 'get', 'block', 'children']);
    expect(splitWords('git.commit')).toEqual(['git', 'commit']);
    expect(splitWords('getHTTPResponse')).toEqual(['get', 'http', 'response']);
    expect(splitWords('utf8Decode')).toEqual(['utf', '8', 'decode']);
  });

  it("drops a clitic ('s, 're, 'll, curly apostrophe too) instead of making it a word", () => {
    expect(splitWords("what's in Bob's file")).toEqual(['what', 'in', 'bob', 'file']);
    expect(splitWords('we’ll see the user’s list')).toEqual(['we', 'see', 'the', 'user', 'list']);
  });

  it('gives nothing for text without letters or digits', () => {
    expect(splitWords('')).toEqual([]);
    expect(splitWords('.*+?()[]{}|\\^$')).toEqual([]);
  });
});

describe('stem', () => {
  it('brings the forms of one verb or noun to one stem', () => {
    const forms = (words: string[]) => new Set(words.map(stem));
    expect(forms(['create', 'creates', 'created', 'creating'])).toEqual(new Set(['creat']));
    expect(forms(['issue', 'issues'])).toEqual(new Set(['issu']));
    expect(forms(['entry', 'entries'])).toEqual(new Set(['entry']));
    expect(forms(['branch', 'branches'])).toEqual(new Set(['branch']));
    expect(forms(['run', 'running'])).toEqual(new Set(['run']));
    expect(forms(['call', 'calling', 'called'])).toEqual(new Set(['call']));
  });

  it('leaves short words and words it would mangle alone', () => {
    expect(stem('ls')).toBe('ls');
    expect(stem('status')).toBe('status');
    expect(stem('process')).toBe('process');
    expect(stem('v2')).toBe('v2');
  });
});

describe('analyze', () => {
  it('folds synonyms and abbreviations, single words and phrases, to one term', () => {
    expect(analyze('rm the dir')).toEqual(analyze('delete the folder'));
    expect(analyze('make a pull request')).toEqual(analyze('create PR'));
    expect(analyze('go to the page')).toEqual(analyze('navigate page'));
    expect(analyze('msg the db')).toEqual(analyze('message database'));
  });

  it('reads a web address as "url" where it stands, so a phrase around it matches', () => {
    expect(analyze('open https://news.ycombinator.com')).toEqual(expect.arrayContaining(analyze('open url')));
    expect(analyze('open https://example.com')).toContain(analyze('navigate')[0]);
  });

  it('drops stop words', () => {
    expect(analyze('please show me the logs')).toEqual(analyze('show logs'));
  });

  it('drops pronouns, forms of "have" and other function words too', () => {
    expect(analyze('they have logs about him')).toEqual(analyze('logs'));
    expect(analyze('she has her own logs, such logs, via us')).toEqual(analyze('logs logs'));
  });

  it('folds the verbs tools say one thing with: run / execute / exec, write / save', () => {
    expect(analyze('execute the build')).toEqual(analyze('run the build'));
    expect(analyze('exec the build')).toEqual(analyze('run the build'));
    expect(analyze('save text')).toEqual(analyze('write text'));
  });

  it('reads a web address as "url" and a file name as "file"', () => {
    expect(analyze('https://example.com')).toContain('url');
    expect(analyze('notes.txt')).toEqual(expect.arrayContaining(analyze('file')));
    expect(analyze('example.com')).not.toEqual(expect.arrayContaining(analyze('file')));
    expect(analyze('how big is data.csv')).toEqual(analyze('size file csv'));
    expect(analyze('open the README')).toEqual(expect.arrayContaining(analyze('file')));
    expect(analyze('how big is it')).toEqual(analyze('size'));
  });

  it('reads an idiom as the act and its object it means, and its words alone as themselves', () => {
    // A group led by a phrase stands for all of its words, as if the request had said them.
    expect(analyze('file a bug')).toEqual(analyze('create issue'));
    expect(analyze('open an issue: the login crashes')).toEqual(analyze('create issue login crash'));
    expect(analyze('mkdir build')).toEqual(analyze('create directory build'));
    // Only the whole idiom: a file and a bug, or opening a file, say what they say.
    expect(analyze('the file has a bug')).toEqual(analyze('file issue'));
    expect(analyze('open the file')).not.toContain(analyze('issue')[0]);
  });

  it('reads a question as a request to get something; "how" questions keep their own words', () => {
    const get = analyze('get')[0];
    expect(analyze('what did reviewers say')).toEqual(analyze('get review say'));
    expect(analyze('who approved PR 31')[0]).toBe(get);
    expect(analyze('when was it modified')[0]).toBe(get);
    expect(analyze('how high is Denver')).not.toContain(get);
    expect(analyze('how high is Denver')).toEqual(analyze('elevation denver'));
    // Only a request that starts as a question.
    expect(analyze('post what you found')).not.toContain(get);
  });

  it('reads a media or office file name as "file" and its kind', () => {
    expect(analyze('how big is video.mp4')).toEqual(analyze('size file mp4'));
    expect(analyze('open report.docx')).toEqual(expect.arrayContaining(analyze('file docx')));
    expect(analyze('play song.flac')).toEqual(expect.arrayContaining(analyze('file flac')));
  });

  it('reads a chat handle as "channel" (#general) or "user" (@bob), and no other # or @', () => {
    expect(analyze('post to #general')).toEqual(analyze('post to channel'));
    expect(analyze('ping @bob.smith')).toEqual(analyze('ping user'));
    expect(analyze('close #42')).toEqual(['clos', '42']);
    expect(analyze('install @types/node')).not.toContain(analyze('user')[0]);
    expect(analyze('ssh user@host')).toEqual(analyze('ssh user host'));
  });

  it('reads a latitude, longitude pair as "coordinates", and a lone decimal not', () => {
    expect(analyze('what is at 40.7,-74.0')).toEqual(expect.arrayContaining(analyze('coordinates')));
    expect(analyze('near 52.52, 13.40')).toEqual(expect.arrayContaining(analyze('coordinates')));
    expect(analyze('version 1.2')).not.toEqual(expect.arrayContaining(analyze('coordinates')));
  });

  it('folds the words of requests written after the first tune set: who am i, paragraph, cafe, disk usage', () => {
    expect(analyze('who am I in notion')).toContain(analyze('self')[0]);
    expect(analyze('add a paragraph')).toContain(analyze('block')[0]);
    expect(analyze('opening hours of that cafe')).toEqual(expect.arrayContaining(analyze('place info')));
    expect(analyze('how much disk')).toEqual(analyze('size'));
    expect(analyze('a second checkout')).toContain(analyze('worktree')[0]);
    // The working tree (the files checked out) is not a worktree (a second checkout).
    expect(analyze('the working tree')).not.toContain(analyze('worktree')[0]);
  });

  it('reads quoted page code (a browser global\'s property, an arrow function) as "javascript"', () => {
    const js = analyze('javascript');
    expect(analyze('run document.title in the page')).toEqual(expect.arrayContaining(js));
    expect(analyze('what does localStorage.getItem("k") give')).toEqual(expect.arrayContaining(js));
    expect(analyze('map it with x => x * 2')).toEqual(expect.arrayContaining(js));
    expect(analyze('the document title of the report')).not.toEqual(expect.arrayContaining(js));
  });

  it('reads a search engine named as a verb as "web search", and not Google Maps', () => {
    const web = analyze('web search');
    expect(analyze('google the latest node release notes')).toEqual(expect.arrayContaining(web));
    expect(analyze('bing it')).toEqual(expect.arrayContaining(web));
    expect(analyze('open google maps at the station')).not.toEqual(expect.arrayContaining(analyze('web')));
  });

  it('reads two numbers added as "sum", and two numbers joined by "and" alone not', () => {
    const sum = analyze('sum');
    expect(analyze('add 2 and 3')).toEqual(expect.arrayContaining(sum));
    expect(analyze('what is 5 plus 7')).toEqual(expect.arrayContaining(sum));
    expect(analyze('1.5 + 2')).toEqual(expect.arrayContaining(sum));
    expect(analyze('issues between 10 and 20')).not.toEqual(expect.arrayContaining(sum));
    expect(analyze('add a label to issue 4')).not.toEqual(expect.arrayContaining(sum));
  });
});
