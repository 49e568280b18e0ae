import { TextChunks } from '../../src/config/textChunks';

describe('TextChunks', () => {
  it('should join short and long pieces in order', () => {
    const chunks = new TextChunks();
    const pieces = ['a', 'b'.repeat(100), '\n', ...Array(3000).fill('c'), 'd'];
    for (const piece of pieces) chunks.push(piece);
    expect(chunks.toString()).toBe(pieces.join(''));
  });

  it('should give the empty string for no pieces and a single piece as it is', () => {
    expect(new TextChunks().toString()).toBe('');
    const chunks = new TextChunks();
    chunks.push('x'.repeat(1000));
    expect(chunks.toString()).toBe('x'.repeat(1000));
  });
});
