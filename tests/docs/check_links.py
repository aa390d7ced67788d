#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the links of the user documentation, offline.

For README.md, every docs/**/*.md, examples/README.md and tools/**/README.md:
- every relative link target exists;
- every #anchor, on the same page or another Markdown page, is the GitHub slug of one of
  that page's headings;
- every PNG or SVG under docs/ is referenced by some page.
Links to http(s) and mailto are not fetched. Prints file:line and the broken link for
each problem and exits 1 if there is any.

Usage: check_links.py [REPOSITORY_ROOT]   (default: two levels above this script)
"""

import os
import re
import sys
import urllib.parse

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) and ![alt](target); the target may be <wrapped> and carry a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]"
                         r"\(\s*(<[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_TARGET = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*\"([^\"]*)\"", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)\s*=\s*\"([^\"]*)\"", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def pages(root):
    found = []
    if os.path.isfile(os.path.join(root, "README.md")):
        found.append("README.md")
    for top in ("docs", "tools"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".md") and (top == "docs" or name == "README.md"):
                    found.append(os.path.relpath(os.path.join(folder, name), root))
    if os.path.isfile(os.path.join(root, "examples", "README.md")):
        found.append(os.path.join("examples", "README.md"))
    return found


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match:
            if fenced is None:
                fenced = match.group(1)
            elif match.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text: Markdown and HTML dropped, lower case,
    punctuation removed (but - and _), spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    result = set()
    for _, line in prose_lines(text):
        for name in HTML_ANCHOR.findall(line):
            result.add(name)
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else "%s-%d" % (base, count))
    return result


def links(text):
    """(line number, target) of every link outside code."""
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        targets += HTML_TARGET.findall(line)
        match = REFERENCE_DEF.match(line)
        if match:
            targets.append(match.group(1))
        for target in targets:
            yield number, target.strip("<>")


def check(root):
    problems = []
    referenced = set()
    anchor_cache = {}

    def anchors_of(path):
        if path not in anchor_cache:
            with open(path, encoding="utf-8") as f:
                anchor_cache[path] = anchors(f.read())
        return anchor_cache[path]

    for page in pages(root):
        page_path = os.path.join(root, page)
        with open(page_path, encoding="utf-8") as f:
            text = f.read()
        for number, target in links(text):
            where = "%s:%d" % (page, number)
            scheme = urllib.parse.urlsplit(target).scheme
            if scheme in ("http", "https", "mailto"):
                continue
            if scheme:
                problems.append("%s: link with an unexpected scheme: %s" % (where, target))
                continue
            path_part, _, anchor = target.partition("#")
            path_part = urllib.parse.unquote(path_part)
            if path_part.startswith("/"):
                problems.append("%s: absolute link (use a relative one): %s" % (where, target))
                continue
            resolved = page_path
            if path_part:
                resolved = os.path.normpath(os.path.join(os.path.dirname(page_path), path_part))
                if os.path.relpath(resolved, root).startswith(".."):
                    problems.append("%s: link leaves the repository: %s" % (where, target))
                    continue
                if not os.path.exists(resolved):
                    problems.append("%s: broken link, no such file: %s" % (where, target))
                    continue
                referenced.add(os.path.realpath(resolved))
            if anchor:
                if not resolved.endswith(".md") or not os.path.isfile(resolved):
                    continue  # anchors into source files (#L12) are GitHub's, not headings
                if urllib.parse.unquote(anchor) not in anchors_of(resolved):
                    problems.append("%s: broken anchor, no such heading: %s" % (where, target))

    for folder, dirs, files in os.walk(os.path.join(root, "docs")):
        dirs.sort()
        for name in sorted(files):
            if name.lower().endswith((".png", ".svg")):
                path = os.path.join(folder, name)
                if os.path.realpath(path) not in referenced:
                    problems.append("%s: image referenced by no page"
                                    % os.path.relpath(path, root))
    return problems


def main():
    default = os.path.join(os.path.dirname(__file__), "..", "..")
    root = sys.argv[1] if len(sys.argv) > 1 else default
    root = os.path.abspath(root)
    checked = pages(root)
    if not checked:
        print("check_links: no Markdown pages found under %s" % root)
        return 1
    problems = check(root)
    for problem in problems:
        print(problem)
    print("check_links: %d pages, %d problems" % (len(checked), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
