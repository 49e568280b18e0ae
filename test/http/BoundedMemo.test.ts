import { BoundedMemo } from '../../src/http/BoundedMemo';

/** A memo of the length of a string, with the keys it computed, in order. */
function lengths(limit: number): {
  memo: BoundedMemo<string, number>;
  computed: string[];
} {
  const computed: string[] = [];
  const memo = new BoundedMemo(limit, (key: string) => {
    computed.push(key);
    return key.length;
  });
  return { memo, computed };
}

describe('BoundedMemo', () => {
  describe('get', () => {
    it('should compute a key once while the memo is not full', () => {
      const { memo, computed } = lengths(2);
      expect([
        memo.get('a'),
        memo.get('bb'),
        memo.get('a'),
        memo.get('bb'),
      ]).toEqual([1, 2, 1, 2]);
      expect(computed).toEqual(['a', 'bb']);
    });

    it('should start afresh when a new key finds it full', () => {
      const { memo, computed } = lengths(2);
      memo.get('a');
      memo.get('bb');
      expect(memo.get('ccc')).toBe(3);
      // Emptied for 'ccc': the keys before it are computed again, 'ccc' is not.
      expect([memo.get('ccc'), memo.get('a')]).toEqual([3, 1]);
      expect(computed).toEqual(['a', 'bb', 'ccc', 'a']);
    });
  });
});
