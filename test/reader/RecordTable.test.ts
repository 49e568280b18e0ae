import { RecordTableEditor } from '../../src/reader/RecordTable';

describe('RecordTableEditor', () => {
  describe('publish', () => {
    it('should leave every published version as it was, whatever the editor does next', () => {
      const editor = new RecordTableEditor();
      // Past 32 × 32 records, so that the trie grows a third level.
      const count = 40 * 32;
      for (let i = 0; i < count; i++) editor.push(`v0:${i}`);
      const first = editor.publish();
      for (let i = 0; i < count; i += 7) editor.set(i, `v1:${i}`);
      editor.push('new');
      const second = editor.publish();
      editor.set(0, 'v2:0');
      editor.set(0, 'v3:0');
      for (let i = 0; i < count; i++) {
        expect(first.get(i)).toBe(`v0:${i}`);
        expect(second.get(i)).toBe(i % 7 === 0 ? `v1:${i}` : `v0:${i}`);
      }
      expect(first.size).toBe(count);
      expect(second.size).toBe(count + 1);
      expect(second.get(count)).toBe('new');
      expect(editor.get(0)).toBe('v3:0');
      expect(editor.publish().get(0)).toBe('v3:0');
    });
  });

  describe('push', () => {
    it('should return consecutive indexes from 0', () => {
      const editor = new RecordTableEditor();
      expect([editor.push('a'), editor.push('b'), editor.push('c')]).toEqual([
        0, 1, 2,
      ]);
      expect(editor.size).toBe(3);
    });
  });
});
