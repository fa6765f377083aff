/**
 * A small glob matcher for grep's `glob` filter: `*` (within one path segment), `**` (across
 * segments), `?` and `{a,b}`. Everything else matches itself.
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob.charAt(i);
    if (char === '*' && glob.charAt(i + 1) === '*') {
      // `**/` may also match no directory at all, so `**/*.ts` matches `a.ts`.
      if (glob.charAt(i + 2) === '/') {
        source += '(?:.*/)?';
        i += 2;
      } else {
        source += '.*';
        i += 1;
      }
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') {
      source += '(?:';
      braces++;
    } else if (char === '}' && braces > 0) {
      source += ')';
      braces--;
    } else if (char === ',' && braces > 0) source += '|';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  if (braces > 0) throw new Error(`glob ${JSON.stringify(glob)} has an unclosed "{"`);
  return new RegExp(`^${source}$`);
}

/**
 * Whether a workspace-relative path (with `/` separators) matches: a glob without `/` is matched
 * against the file name alone, so `*.ts` finds TypeScript files at any depth.
 */
export function matchesGlob(glob: RegExp, globHasSlash: boolean, relPath: string): boolean {
  const subject = globHasSlash ? relPath : relPath.slice(relPath.lastIndexOf('/') + 1);
  return glob.test(subject);
}
