/**
 * Recording rule names that stay apart: `legacy:<name>:<key>` sanitises a legacy name, so `a.b`
 * and `a_b` would share `legacy:a_b:count`. Where two names meet, the one that needs no
 * sanitising keeps the plain name and the others take Prometheus' "dots" escaping (`.` → `_dot_`,
 * `_` → `__`): `legacy:a_dot_b:count`.
 */

/** The name of the recording rule that reproduces a legacy key: `legacy:<name>:<key>`. */
export function recordingRuleName(legacyName: string, key: string): string {
  return `legacy:${legacyName.replace(/[^A-Za-z0-9_]/g, '_')}:${key}`;
}

/** A legacy name as Prometheus' "dots" escaping writes it: `a.b_c` → `a_dot_b__c`. */
export function dotsEscaped(name: string): string {
  return name
    .replace(/_/g, '__')
    .replace(/\./g, '_dot_')
    .replace(/[^A-Za-z0-9_]/g, '_');
}

/** Legacy names that would share a rule name, and the rule name each gets instead. */
export interface RuleNameCollision {
  /** The plain rule name, with `<key>` for the key: `legacy:a_b:<key>`. */
  readonly shared: string;
  /** Each legacy name and its rule name, with `<key>` for the key. */
  readonly names: readonly (readonly [string, string])[];
}

/** The rule names of a set of legacy names: `ruleName(name, key)`, and the collisions found. */
export function ruleNamesFor(legacyNames: Iterable<string>): {
  ruleName(name: string, key: string): string;
  collisions: RuleNameCollision[];
} {
  const byPlain = new Map<string, string[]>();
  for (const name of new Set(legacyNames)) {
    const plain = recordingRuleName(name, '<key>');
    byPlain.set(plain, [...(byPlain.get(plain) ?? []), name]);
  }
  const renamed = new Map<string, string>();
  const collisions: RuleNameCollision[] = [];
  for (const [shared, names] of byPlain) {
    if (names.length < 2) continue;
    const used = new Set<string>();
    const pairs: [string, string][] = [];
    for (const name of [...names].sort()) {
      const plainFits = /^[A-Za-z0-9_]+$/.test(name) && !used.has(name);
      let base = plainFits ? name : dotsEscaped(name);
      for (let n = 2; used.has(base); n++) base = `${dotsEscaped(name)}_${n}`;
      used.add(base);
      renamed.set(name, base);
      pairs.push([name, `legacy:${base}:<key>`]);
    }
    collisions.push({ shared, names: pairs });
  }
  return {
    ruleName: (name, key) => {
      const base = renamed.get(name);
      return base === undefined
        ? recordingRuleName(name, key)
        : `legacy:${base}:${key}`;
    },
    collisions,
  };
}
