import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of README.md and docs/*.md resolves: the file exists in the repository, and
 * an `#anchor` (on the same page or another Markdown page) names one of that page's headings, as
 * GitHub makes anchors from headings (github-slugger). Links to other sites are not fetched; links
 * that leave the repository (the spec beside it) are written as code, not links.
 */
const ROOT = resolve(import.meta.dirname, '..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const markdown = new MarkdownIt({ html: true });
type Token = ReturnType<typeof markdown.parse>[number];

const tokensOf = (file: string): Token[] => markdown.parse(readFileSync(join(ROOT, file), 'utf8'), {});

const flatten = (tokens: Token[]): Token[] => tokens.flatMap((token) => [token, ...flatten(token.children ?? [])]);

/** The anchors GitHub gives a page's headings (duplicates get -1, -2, …). */
const anchorsOf = (file: string): Set<string> => {
  const slugger = new GithubSlugger();
  const tokens = tokensOf(file);
  const anchors = new Set<string>();
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(tokens[index + 1].content));
  });
  return anchors;
};

const linksOf = (file: string): string[] =>
  flatten(tokensOf(file))
    .filter((token) => token.type === 'link_open')
    .map((token) => String(token.attrGet('href') ?? ''));

const isExternal = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href);

describe('documentation links', () => {
  it('covers the README and every page of docs/', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/architecture.md', 'docs/operations.md', 'docs/images-and-models.md', 'docs/performance.md', 'docs/reliability.md']));
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const broken: string[] = [];
    const links = linksOf(page);
    for (const href of links) {
      if (isExternal(href)) continue;
      const [path, anchor] = href.split('#', 2) as [string, string | undefined];
      const target = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), decodeURIComponent(path));
      if (!target.startsWith(ROOT + '/') && target !== ROOT) {
        broken.push(`${href}: leaves the repository`);
        continue;
      }
      if (!existsSync(target)) {
        broken.push(`${href}: no such file`);
        continue;
      }
      if (anchor !== undefined) {
        const file = relative(ROOT, target);
        if (!statSync(target).isFile() || !file.endsWith('.md')) broken.push(`${href}: an anchor on a file that is not a Markdown page`);
        else if (!anchorsOf(file).has(anchor)) broken.push(`${href}: no heading with that anchor in ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('each page of docs/ starts with what it is for and is linked from the README', () => {
    const readmeLinks = linksOf('README.md');
    for (const page of PAGES.filter((file) => file.startsWith('docs/'))) {
      const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
      expect(lines[0], page).toMatch(/^# /);
      expect(lines.slice(1, 4).join(' '), page).toMatch(/^\s*For \*\*/);
      expect(readmeLinks, page).toContain(page);
    }
  });

  it('the README stays short', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});
