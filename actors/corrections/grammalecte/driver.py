"""palabre's Grammalecte sidecar: JSON lines on stdin -> JSON lines on stdout.

Grammalecte (GPL-3, https://grammalecte.net) is an external program: this driver only imports
its Python package from PYTHONPATH and calls its public API (GrammarChecker); no Grammalecte
code is copied here.

Protocol (one JSON object per line, UTF-8):
  out, once at start:  {"type": "ready", "version": "...", "warmMs": 812}
  in:                  {"id": 1, "text": "..."}
  out:                 {"id": 1, "grammar": [{"start", "end", "rule", "type", "message", "suggestions"}],
                        "spelling": [{"start", "end", "word"}], "a": [{"start", "before"}],
                        "lex": {"word": ["morphology", ...]}}
  out on a bad line:   {"id": 1 | null, "error": "..."}
Offsets are in UTF-16 code units of the whole text (what JavaScript string indices count),
paragraphs being the text's lines.
"""
import json
import re
import sys
import time


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def send(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


WORD = re.compile(r"[\w’'-]+")
# Families whose taxonomy code depends on the words around the error (agreement: determiner,
# adjective, noun or participle; « a » before an infinitive): each error carries the morphology
# of the two words before it, of its own words and of the three after.
MORPH_TYPES = {"gn", "ppas", "conj"}
SENTENCE_START = re.compile(r"(^|[.!?…:]\s+|[«\"]\s*)$")


ELIDED = re.compile(r"^(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’](?=\w)", re.I)


def morph(speller, w):
    try:
        found = list(speller.getMorph(w))[:4]
        # « t'inviter », « l'argent »: the word after the elided one carries the morphology.
        if not found and ELIDED.match(w):
            found = list(speller.getMorph(ELIDED.sub("", w)))[:4]
        return found
    except Exception:  # an odd token must not fail the check
        return []


def around(speller, line, start, end):
    before = [m for m in WORD.finditer(line[:start])][-2:]
    inside = list(WORD.finditer(line[start:end]))
    after = list(WORD.finditer(line, end))[:3]
    words = [(m.group(0), "before") for m in before] + [(m.group(0), "flagged") for m in inside] + [(m.group(0), "after") for m in after]
    return [{"w": w, "pos": p, "m": morph(speller, w)} for w, p in words]


A_TOKEN = re.compile(r"(?<![\w’'-])a(?![\w’'-])")


def a_tokens(speller, line, js):
    """Every « a » of the line with the two words before it: avoir or a missed « à »? (palabre decides)."""
    out = []
    for m in A_TOKEN.finditer(line):
        before = [w.group(0) for w in WORD.finditer(line[:m.start()])][-2:]
        out.append({"start": js(m.start()), "before": [{"w": w, "pos": "before", "m": morph(speller, w)} for w in before]})
    return out


LEX_WORD = re.compile(r"(?i:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’](?=[^\W\d_])|[^\W\d_]+(?:-[^\W\d_]+)*")


def lexicon(speller, text):
    """The morphology of every distinct word (and of its lower-case form): palabre's own agreement
    and mood rules (copula.ts, subjunctive.ts) read it. ~2 ms for a 250-word text."""
    out = {}
    for m in LEX_WORD.finditer(text):
        # Elided words are in Grammalecte's dictionary with the typographic apostrophe (« l’ »).
        for w in (m.group(0), m.group(0).lower().replace("'", "’")):
            if w not in out:
                out[w] = list(speller.getMorph(w))[:8] if len(w) < 40 else []
    return out


def check(checker, text):
    speller = checker.getSpellChecker()
    grammar, spelling, a_list = [], [], []
    offset = 0  # UTF-16 offset of the current line in the whole text
    for line in text.split("\n"):
        if line.strip():
            # Python indices count code points; JavaScript counts UTF-16 units (differs past the BMP).
            def js(i, line=line, offset=offset):
                return offset + utf16_len(line[:i])
            gram, spell = checker.getParagraphErrors(line)
            for e in gram:
                grammar.append({
                    "start": js(e["nStart"]), "end": js(e["nEnd"]), "rule": e.get("sRuleId", ""),
                    "type": e.get("sType", ""), "message": e.get("sMessage", ""),
                    "suggestions": list(e.get("aSuggestions", []))[:5],
                    **({"words": around(speller, line, e["nStart"], e["nEnd"])} if e.get("sType", "") in MORPH_TYPES else {}),
                })
            a_list.extend(a_tokens(speller, line, js))
            for e in spell:
                word = e.get("sValue", "")
                item = {"start": js(e["nStart"]), "end": js(e["nEnd"]), "word": word}
                # A capitalised unknown word opening a sentence may be a first name (Reza) or a
                # misspelling (Tranquile): palabre decides from the suggestions (~10 ms, rare).
                if word[:1].isupper() and SENTENCE_START.search(line[:e["nStart"]]):
                    item["suggestions"] = [x for group in speller.suggest(word) for x in group][:8]
                spelling.append(item)
        offset += utf16_len(line) + 1
    return {"grammar": grammar, "spelling": spelling, "a": a_list, "lex": lexicon(speller, text)}


def main():
    t0 = time.time()
    import grammalecte  # noqa: E402  (found through PYTHONPATH, set by palabre)
    checker = grammalecte.GrammarChecker("fr")
    # The first check compiles the rule graph (~1 s): pay it now, before palabre says "ready".
    checker.getParagraphErrors("Les enfant joue dans le jardin a coté de la maison.")
    version = getattr(checker.getGCEngine(), "version", "") or ""
    send({"type": "ready", "version": str(version), "warmMs": round((time.time() - t0) * 1000)})
    for raw in sys.stdin:
        raw = raw.strip()
        if not raw:
            continue
        rid = None
        try:
            req = json.loads(raw)
            rid = req.get("id")
            text = req["text"]
            if not isinstance(text, str):
                raise ValueError("text must be a string")
            out = check(checker, text)
            out["id"] = rid
            send(out)
        except Exception as exc:  # one bad request must not end the sidecar
            send({"id": rid, "error": f"{type(exc).__name__}: {exc}"})


if __name__ == "__main__":
    main()
