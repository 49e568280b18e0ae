import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The ColumnRecycler's ways back through the collector, observed in a process of its own
 * (fixtures/recyclerCollection.js, on the built package): whether a FinalizationRegistry's
 * callbacks arrive is the isolate's, and in a test worker that ran other suites they may not
 * arrive at all. The cases that need no collection are in ColumnRecycler.test.ts.
 */
interface Observed {
  collectedOwner: {
    waiting: number;
    waitingLater: number;
    cameBack: number;
    made: number;
    againAreDropped: boolean[];
    againHasKept: boolean;
    nextIsNew: boolean;
    madeAtEnd: number;
    keptValue: number;
  };
  fourPublications: {
    waiting: number;
    waitingLater: number;
    afterFirstLonger: number;
    afterSecondLonger: number;
    longerBack: number;
    oldLength: number;
    oldMade: number;
  };
  releasedThenCollected: {
    released: number;
    waiting: number;
    controlBack: number;
    cameBack: number;
    waitingLater: number;
    againAreReleased: boolean[];
    made: number;
  };
  slicedCopies: {
    waiting: number;
    made: number;
    cameBack: number;
    copied: boolean;
    differing: number;
  };
}

describe('ColumnRecycler, through the collector', () => {
  let observed: Observed;

  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', resolve(__dirname, 'fixtures', 'recyclerCollection.js')],
      { timeout: 60_000 }
    );
    observed = JSON.parse(stdout) as Observed;
  }, 70_000);

  it('should hand out the arrays of a collected owner again, and never those of one alive', () => {
    expect(observed.collectedOwner).toEqual({
      // Both arrays of the dropped owner, and after five more collections still only those.
      waiting: 2,
      waitingLater: 2,
      cameBack: 2,
      made: 4,
      // Handed out again by identity, none of the live owner's, whose values are untouched.
      againAreDropped: [true, true],
      againHasKept: false,
      // None left: the next take of the shape makes a new array.
      nextIsNew: true,
      madeAtEnd: 5,
      keptValue: 7,
    });
  });

  it("should keep at most four publications' arrays of a shape, and none of a shape no longer taken", () => {
    expect(observed.fourPublications).toEqual({
      // Six publications dropped, four kept, through 20 more collections.
      waiting: 4,
      waitingLater: 4,
      // The columns grew: once a publication has taken none of the old length, those are let go,
      afterFirstLonger: 4,
      afterSecondLonger: 0,
      // and the longer ones come back in their place;
      longerBack: 2,
      // a take of the old length makes a new array.
      oldLength: 100,
      oldMade: 1,
    });
  });

  it("should take back a released publication's arrays at once, and not again once their owner is collected", () => {
    expect(observed.releasedThenCollected).toEqual({
      released: 2,
      waiting: 2,
      // A control owner, dropped in a recycler of its own, came back in the same collections:
      controlBack: 1,
      // the released owner's collection brought nothing back a second time.
      cameBack: 0,
      waitingLater: 2,
      againAreReleased: [true, true],
      made: 2,
    });
  });

  it('should serve SlicedCopies: an array that came back is filled whole with the new values', () => {
    expect(observed.slicedCopies).toEqual({
      waiting: 1,
      made: 1,
      cameBack: 1,
      copied: true,
      differing: 0,
    });
  });
});
