import { SYNONYM_GROUPS } from './synonyms.js';

/** Longest text analysed per field or query; the rest is ignored (keeps a 10 KB query cheap). */
const MAX_TEXT = 4_000;

/** Words too common to say anything about which tool is meant. */
const STOP_WORDS = new Set(
  (
    'a an the and or of to in on at for from with by into onto as is are be been was were it its this that ' +
    'these those i me my we our you your can could would should will please want need like some any ' +
    'do does did just also then there here which what when where who how so if but not no yes ' +
    'he she they them their his her him us has have had am about than too very via own such'
  ).split(' '),
);

/**
 * Splits text into lowercase words: on anything not a letter or digit (so snake_case, kebab-case,
 * dotted.names and paths split), and inside camelCase / PascalCase ("getHTTPResponse" → get, http,
 * response) and between letters and digits.
 */
export function splitWords(text: string): string[] {
  const spaced = text
    .slice(0, MAX_TEXT)
    // "what's", "Bob's", "we'll": the clitic is no word of its own (a lone "s" matched any tool
    // text with a possessive, a rare and so heavy term); the word before it stays.
    .replace(/(?<=\p{L})['’](?:s|re|ll|ve|d|m|t)\b/giu, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/(?<=[a-zA-Z])(?=\d)|(?<=\d)(?=[a-zA-Z])/g, ' ');
  const words: string[] = [];
  for (const word of spaced.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word) words.push(word);
  return words;
}

const VOWEL = /[aeiouy]/;

/**
 * A light suffix stripper: plural and verb endings only (-ies, -es, -s, -ing, -ed), then a final
 * -e, so "creates", "created", "creating" and "create" meet at "creat". It does not try to be
 * Porter: tool text is short and a wrong merge costs more than a missed one.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  else if (w.endsWith('ing') && VOWEL.test(w.slice(0, -3)) && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && VOWEL.test(w.slice(0, -2)) && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 3 && !w.endsWith('ee')) w = w.slice(0, -1);
  return w;
}

/** "running" → "runn" → "run"; keeps ll, ss, zz ("calling" → "call"). */
function undouble(w: string): string {
  const last = w.at(-1);
  if (w.length > 2 && last === w.at(-2) && !'lsz'.includes(last as string)) return w.slice(0, -1);
  return w;
}

function cachedStem(word: string, cache: Map<string, string>): string {
  let stemmed = cache.get(word);
  if (stemmed === undefined) {
    stemmed = stem(word);
    cache.set(word, stemmed);
  }
  return stemmed;
}

interface Phrase {
  readonly words: readonly string[];
  readonly canonical: readonly string[];
}

/**
 * Stemmed single word → canonical terms; phrases by their first stemmed word, longest first. A
 * group's first member may be several words ("create issue"): a member then stands for all of
 * them, and their pair, as if the request had said them ("file a bug" reads as "create issue").
 */
const SINGLE = new Map<string, readonly string[]>();
const PHRASES = new Map<string, Phrase[]>();
for (const group of SYNONYM_GROUPS) {
  const canonical = (group[0] as string).split(' ').map(stem);
  for (const member of group) {
    const words = member.split(' ').map(stem);
    if (words.length === 1) {
      if (!SINGLE.has(words[0] as string)) SINGLE.set(words[0] as string, canonical);
      continue;
    }
    const list = PHRASES.get(words[0] as string) ?? [];
    list.push({ words, canonical });
    list.sort((a, b) => b.words.length - a.words.length);
    PHRASES.set(words[0] as string, list);
  }
}

/**
 * A web address in the text says "url" even when the words around it do not, and says it where
 * it stands, so "open https://…" reads as "open url".
 */
const URL_LIKE = /\b(?:https?|ftp):\/\/\S*|\bwww\.[a-z0-9-]+\.\S*/gi;
/**
 * So does a file name ("notes.txt", "config.yaml", and the well-known ones without a dot) say
 * "file", and its extension what kind; its base name is the file the request is about, not words
 * about the tool ("data.csv" is no request for data sources), so it is dropped.
 */
const FILE_LIKE =
  /\b(?:readme|license|licence|makefile|dockerfile|gemfile|procfile)\b|[\w-]+\.(?:txt|md|markdown|json|jsonc|ya?ml|toml|ini|env|csv|tsv|log|lock|xml|html?|css|scss|[cm]?[jt]sx?|py|rb|go|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|sql|png|jpe?g|gif|svg|webp|bmp|tiff?|heic|ico|pdf|docx?|xlsx?|pptx?|odt|mp[34]|m4a|mov|mkv|avi|webm|wav|flac|ogg|zip|gz|tar|wasm)\b/gi;

/** And a latitude, longitude pair ("40.7,-74.0", "52.52, 13.40") says "coordinates". */
const LAT_LNG = /[-+]?\b\d{1,3}\.\d+\s*,\s*[-+]?\d{1,3}\.\d+\b/g;

/**
 * A chat handle names a channel ("#general") or a person ("@bob"), as chat tools write them; the
 * name itself is the argument, not words about a tool. Not "#42" (an issue number), not an npm
 * scope ("@types/node"), not inside a word ("user@host", "page#anchor").
 */
const HANDLE = /(?<!\S)[#@][a-z][\w.-]*(?![\w./-])/gi;

/**
 * Code a request quotes for a page to run says "javascript": a property of the browser's globals
 * ("document.title", "window.scrollY", "localStorage.getItem") or an arrow function.
 */
const SCRIPT_LIKE = /\b(?:document|window|navigator|localStorage|sessionStorage|console)\.[a-z_$][\w$]*|=>/gi;

/**
 * A search engine's name used for what it does ("google the error", "bing it") says "web search";
 * not a product of the same name ("Google Maps", "Bing Maps").
 */
const ENGINE = /\b(?:google|bing|duckduckgo|ddg)\b(?!\s*maps?\b)/gi;

/**
 * A request put as a question ("what did reviewers say", "who approved it", "when was it
 * modified") asks to get something, whatever its verb. Not "how" ("how big", "how far" say
 * more than "get", and their own groups read them).
 */
const QUESTION = /^\s*(?:what|which|who|where|when)\b/i;

/** Two numbers added ("2 + 3", "5 plus 7", "add 2 and 3") say "sum". */
const ADDITION = /\d\s*(?:\+|\bplus\b)\s*\d|\badd\s+-?\d+(?:\.\d+)?\s+(?:and|to)\s+-?\d/gi;

/**
 * The text with "get" before a question, "channel" or "user" for each chat handle, "url" before
 * each web address, "file" and the extension for each file name, and "coordinates" before each
 * latitude, longitude pair (and the other marks above).
 */
function markAddresses(text: string): string {
  // One test each first: most text has neither, and then nothing is copied.
  URL_LIKE.lastIndex = 0;
  FILE_LIKE.lastIndex = 0;
  LAT_LNG.lastIndex = 0;
  HANDLE.lastIndex = 0;
  SCRIPT_LIKE.lastIndex = 0;
  ENGINE.lastIndex = 0;
  ADDITION.lastIndex = 0;
  let marked = text;
  if (QUESTION.test(marked)) marked = ` get ${marked}`;
  if (SCRIPT_LIKE.test(marked)) marked = marked.replace(SCRIPT_LIKE, ' javascript $& ');
  if (ENGINE.test(marked)) marked = marked.replace(ENGINE, ' web search ');
  if (ADDITION.test(marked)) marked = marked.replace(ADDITION, ' sum $& ');
  if (HANDLE.test(marked)) marked = marked.replace(HANDLE, (m) => (m[0] === '#' ? ' channel ' : ' user '));
  if (LAT_LNG.test(marked)) marked = marked.replace(LAT_LNG, ' coordinates $& ');
  if (URL_LIKE.test(marked)) marked = marked.replace(URL_LIKE, ' url $& ');
  if (FILE_LIKE.test(marked))
    marked = marked.replace(
      FILE_LIKE,
      (m) => ` file ${m.includes('.') ? m.slice(m.lastIndexOf('.') + 1) : m} `,
    );
  return marked;
}

/**
 * Text → index terms: split, stem, phrases and synonyms folded to one term per meaning, stop words
 * dropped. The same function serves tool text and queries, so both meet in the same vocabulary.
 */
export function analyze(text: string, stemCache?: Map<string, string>): string[] {
  const words = splitWords(markAddresses(text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text));
  const stems = stemCache ? words.map((w) => cachedStem(w, stemCache)) : words.map(stem);
  const terms: string[] = [];
  for (let i = 0; i < stems.length; i++) {
    const word = stems[i] as string;
    const phrase = PHRASES.get(word)?.find((p) => p.words.every((w, k) => stems[i + k] === w));
    if (phrase) {
      terms.push(...phrase.canonical);
      i += phrase.words.length - 1;
      continue;
    }
    if (STOP_WORDS.has(words[i] as string)) continue;
    const canonical = SINGLE.get(word);
    if (canonical) terms.push(...canonical);
    else terms.push(word);
  }
  return terms;
}
