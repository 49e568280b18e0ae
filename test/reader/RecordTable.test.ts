import {
  RecordTableEditor,
  type RecordTable,
} from '../../src/reader/RecordTable';
import { Slicer } from '../../src/reader/Slicer';

/** An editor of `size` records, -0 to -(size - 1), published once, and what each version held. */
function publishedTable(size: number) {
  const editor = new RecordTableEditor();
  const model = Array.from({ length: size }, (_, i) => -i);
  for (const value of model) editor.push(value);
  const held: { table: RecordTable; values: number[] }[] = [
    { table: editor.publish(), values: [...model] },
  ];
  /** Every version held answers as it was published. */
  const expectHeldAsPublished = () => {
    for (const { table, values } of held)
      expect(Array.from({ length: size }, (_, i) => table.get(i))).toEqual(
        values
      );
  };
  return { editor, model, held, expectHeldAsPublished };
}

describe('RecordTableEditor', () => {
  describe('publish', () => {
    it('should leave every published version as it was, whatever the editor does next', () => {
      const editor = new RecordTableEditor();
      const count = 40 * 32;
      for (let i = 0; i < count; i++) editor.push(`v0:${i}`);
      const first = editor.publish();
      for (let i = 0; i < count; i += 7) editor.set(i, `v1:${i}`);
      editor.push('new');
      // Staged, not published: the newest version still reads what it had.
      expect(first.get(7)).toBe('v0:7');
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
      const third = editor.publish();
      expect(third.get(0)).toBe('v3:0');
      expect(second.get(0)).toBe('v1:0');
      expect(first.get(0)).toBe('v0:0');
    });

    it('should keep every version held across many publications and epochs as it was published', () => {
      const size = 50;
      const { editor, model, held, expectHeldAsPublished } =
        publishedTable(size);
      // 30 changes per publication against 50 records: an epoch ends every few publications.
      let random = 12345;
      for (let gen = 1; gen <= 40; gen++) {
        for (let k = 0; k < 30; k++) {
          random = (random * 1103515245 + 12345) % 2 ** 31;
          const index = random % size;
          model[index] = gen * 1000 + k;
          editor.set(index, model[index]);
        }
        held.push({ table: editor.publish(), values: [...model] });
      }
      expectHeldAsPublished();
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

describe('RecordTableEditor prepare', () => {
  it('should copy the table ahead of an epoch’s end in slices, every version answering as published', () => {
    const size = 5000;
    const { editor, model, held, expectHeldAsPublished } = publishedTable(size);
    let sliced = 0;
    for (let gen = 1; gen <= 6; gen++) {
      // 4,000 changes per publication against 5,000 records: an epoch ends every few.
      for (let k = 0; k < 4000; k++) {
        const index = (gen * 7919 + k * 104729) % size;
        model[index] = gen * 10_000 + k;
        editor.set(index, model[index]);
      }
      const slicer = new Slicer(Infinity, 1);
      let slices = 1;
      while (!editor.prepare(slicer)) slices++;
      if (slices > 1) sliced++;
      held.push({ table: editor.publish(), values: [...model] });
    }
    // 5,000 records at a thousand a unit and one unit a slice: five slices, where an epoch ended.
    expect(sliced).toBeGreaterThan(0);
    expectHeldAsPublished();
  });

  it('should not keep a copy made for an epoch’s end that a pushed record put off', () => {
    const size = 10;
    const { editor, model, held, expectHeldAsPublished } = publishedTable(size);
    for (let k = 0; k < 21; k++) {
      model[k % size] = 100 + k;
      editor.set(k % size, model[k % size]);
    }
    // 21 staged against 10 records ends an epoch: the copy is made…
    expect(editor.prepare(Slicer.unbounded())).toBe(true);
    // …but a new record puts the epoch's end off, and later publications change every record.
    editor.push(-10);
    held.push({ table: editor.publish(), values: [...model] });
    for (let gen = 2; gen <= 6; gen++) {
      for (let i = 0; i < size; i++) {
        model[i] = gen * 1000 + i;
        editor.set(i, model[i]);
      }
      held.push({ table: editor.publish(), values: [...model] });
    }
    expectHeldAsPublished();
  });
});

describe('RecordTableEditor write', () => {
  it('should write the staged records in slices, every version answering as published between them', () => {
    const size = 3000;
    const { editor, model, held, expectHeldAsPublished } = publishedTable(size);
    const slicesPerPublication: number[] = [];
    let epochsSliced = 0;
    for (let gen = 1; gen <= 8; gen++) {
      // 2,500 changes per publication, some records twice, against 3,000: an epoch ends every
      // other publication or so, and the logs of the others are written in slices.
      for (let k = 0; k < 2500; k++) {
        const index = (gen * 7919 + k * 104729) % size;
        model[index] = gen * 10_000 + k;
        editor.set(index, model[index]);
        if (k % 500 === 0) {
          model[index] = gen * 10_000 + k + 0.5;
          editor.set(index, model[index]);
        }
      }
      const endsEpoch = !editor.prepare(new Slicer(Infinity, 1));
      while (!editor.prepare(new Slicer(Infinity, 1)));
      // One unit (64 records) a slice: the versions held answer as published between slices.
      const slicer = new Slicer(Infinity, 1);
      let slices = 1;
      while (!editor.write(slicer)) {
        slices++;
        if (slices % 7 === 0) expectHeldAsPublished();
        expect(() => editor.set(0, 'late')).toThrow(/while the staged ones/);
      }
      if (endsEpoch) epochsSliced++;
      slicesPerPublication.push(slices);
      held.push({ table: editor.publish(), values: [...model] });
    }
    // 2,505 staged records at 64 a slice.
    expect(slicesPerPublication).toEqual(Array(8).fill(40));
    expect(epochsSliced).toBeGreaterThan(0);
    expect(epochsSliced).toBeLessThan(8);
    expectHeldAsPublished();
    // And the editor goes on as before once published.
    editor.set(0, 'after');
    expect(editor.publish().get(0)).toBe('after');
    expectHeldAsPublished();
  });
});
