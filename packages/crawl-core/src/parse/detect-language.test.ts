import { describe, expect, it } from 'vitest';
import { guessLanguage, primaryLanguage } from './detect-language';

const SAMPLES: Record<string, string> = {
  en: 'The crawler fetches each page at most once, and it waits for the delay that the host asks for. This is the rule that we follow for every site on the web, but it is not the only one.',
  de: 'Der Crawler ruft jede Seite höchstens einmal ab, und er wartet auf die Verzögerung, die der Server verlangt. Das ist die Regel, die wir für jede Seite im Netz befolgen, aber es ist nicht die einzige.',
  fr: 'Le robot récupère chaque page au plus une fois, et il attend le délai que le serveur demande. Ce sont les règles que nous suivons pour tous les sites du web, mais ce ne sont pas les seules.',
  es: 'El rastreador descarga cada página como máximo una vez, y espera el retraso que pide el servidor. Es la regla que seguimos para todos los sitios de la web, pero no es la única que tenemos.',
  it: 'Il crawler scarica ogni pagina al massimo una volta, e aspetta il ritardo che il server chiede. Questa è la regola che seguiamo per tutti i siti del web, ma non è la sola che abbiamo per il lavoro.',
  nl: 'De crawler haalt elke pagina hoogstens één keer op, en hij wacht op de vertraging die de server vraagt. Dit is de regel die wij voor elke site op het web volgen, maar het is niet de enige.',
  pt: 'O rastreador busca cada página no máximo uma vez, e espera o atraso que o servidor pede. Esta é a regra que seguimos para todos os sites da web, mas não é a única que temos para o trabalho.',
};

describe('guessLanguage', () => {
  for (const [lang, text] of Object.entries(SAMPLES)) {
    it(`recognizes ${lang}`, () => {
      expect(guessLanguage(text)).toBe(lang);
    });
  }

  it('says null for short, foreign-script or stop-word-free text', () => {
    expect(guessLanguage('Home About Contact')).toBeNull();
    expect(guessLanguage('Веб-краулер загружает каждую страницу не более одного раза.')).toBeNull();
    expect(guessLanguage('网络爬虫每个页面最多抓取一次')).toBeNull();
    expect(guessLanguage('')).toBeNull();
    expect(
      guessLanguage('crawler fetch queue host robots shard index schedule'.repeat(5)),
    ).toBeNull();
  });
});

describe('primaryLanguage', () => {
  it('keeps the lowercased primary subtag of a BCP 47 tag', () => {
    expect(primaryLanguage('en-US')).toBe('en');
    expect(primaryLanguage(' pt_BR ')).toBe('pt');
    expect(primaryLanguage('DE')).toBe('de');
    expect(primaryLanguage('yue-Hant-HK')).toBe('yue');
  });

  it('refuses empty, malformed and non-committal tags', () => {
    for (const tag of [null, undefined, '', '  ', 'english', 'e', '12', 'und', 'mul', 'zxx']) {
      expect(primaryLanguage(tag)).toBeNull();
    }
  });
});
