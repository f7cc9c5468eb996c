/** Languages the stop-word heuristic can name (ISO 639-1). */
export const GUESSABLE_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
export type GuessableLanguage = (typeof GUESSABLE_LANGUAGES)[number];

/**
 * The most frequent short function words of each language. Many are shared (`de`, `la`,
 * `que`, `en`…): a shared word scores for every language that has it, so the distinctive ones
 * decide.
 */
const STOP_WORDS: Record<GuessableLanguage, string> = {
  en: 'the and of to is in that it for with was on are this be by you not have from they which but at or',
  de: 'der die und das ist nicht mit sich des auf für ein eine dem den zu von auch ich wird sind im werden bei',
  fr: 'le la les et est des une du que dans pour pas qui sur au avec ce il sont aux ne nous mais ou par',
  es: 'el los las y es del que en por con una para se no su al lo como más pero sus le ya está muy',
  it: 'il di che è la per non una sono del della gli con le un anche nel questo si ha alla dei delle ma',
  nl: 'de het een en van is dat niet op te zijn met voor die ook er maar aan wordt bij als dit naar om',
  pt: 'o os as e do da não que em um uma para com dos das é se no na mais por ao seu sua foi',
};

/** Word → bit set of the languages (by index in {@link GUESSABLE_LANGUAGES}) that use it. */
const WORD_LANGUAGES = new Map<string, number>();
GUESSABLE_LANGUAGES.forEach((lang, i) => {
  for (const word of STOP_WORDS[lang].split(' ')) {
    WORD_LANGUAGES.set(word, (WORD_LANGUAGES.get(word) ?? 0) | (1 << i));
  }
});

/** Characters of text the heuristic reads: plenty for a verdict, bounded cost. */
const SAMPLE_CHARS = 20_000;
/** Fewest stop-word hits for a verdict. */
const MIN_HITS = 4;
/** Smallest share of the sampled words that must be the winner's stop words. */
const MIN_SHARE = 0.08;
/** The winner must beat the runner-up by this factor. */
const MIN_LEAD = 1.25;

/**
 * Guesses a text's language from stop-word counts: `en`, `de`, `fr`, `es`, `it`, `nl` or `pt`,
 * or null when unsure.
 *
 * Limits: only those seven languages (anything else — including every non-Latin script —
 * yields null or, for a language close to one of them, a wrong guess: Catalan or Galician can
 * come out as `es`/`pt`, Afrikaans as `nl`); it needs a few sentences (at least
 * {@link MIN_HITS} stop-word hits, {@link MIN_SHARE} of the words), so titles, menus and
 * word lists give null; a mixed-language page gets its dominant language; only the first
 * 20,000 characters are read.
 */
export function guessLanguage(text: string): GuessableLanguage | null {
  const scores = new Array<number>(GUESSABLE_LANGUAGES.length).fill(0);
  let words = 0;
  for (const match of text
    .slice(0, SAMPLE_CHARS)
    .toLowerCase()
    .matchAll(/\p{L}+/gu)) {
    words++;
    const langs = WORD_LANGUAGES.get(match[0]);
    if (langs === undefined) continue;
    for (let i = 0; i < scores.length; i++) if (langs & (1 << i)) scores[i]!++;
  }
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  const top = scores[best]!;
  const runnerUp = Math.max(...scores.filter((_, i) => i !== best));
  if (top < MIN_HITS || top < words * MIN_SHARE || top < runnerUp * MIN_LEAD) return null;
  return GUESSABLE_LANGUAGES[best]!;
}

/**
 * The primary language subtag of a BCP 47 tag as found in `<html lang>` (`en-US` → `en`,
 * `pt_BR` → `pt`), lowercased; null for an empty, malformed or non-committal tag (`und`,
 * `mul`, `zxx`, `mis`).
 */
export function primaryLanguage(tag: string | null | undefined): string | null {
  const primary = tag?.trim().split(/[-_]/)[0]?.toLowerCase() ?? '';
  if (!/^[a-z]{2,3}$/.test(primary)) return null;
  return ['und', 'mul', 'zxx', 'mis'].includes(primary) ? null : primary;
}
