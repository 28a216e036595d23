import { describe, expect, it } from 'vitest';
import { closestParam, editDistance, MAX_NAME_CHARS, unknownQueryParamMessage } from './unknown-query-param.js';

const RANGE = ['from', 'to', 'nodepool'];

describe('editDistance', () => {
  it.each([
    // a, b, edits worked by hand
    ['', '', 0],
    ['', 'to', 2], // two insertions
    ['from', 'from', 0],
    ['fro', 'from', 1], // insert m
    ['nodpool', 'nodepool', 1], // insert e
    ['form', 'from', 2], // no transpositions: two substitutions
    ['at', 'to', 2], // a->t, t->o
    ['kitten', 'sitting', 3], // k->s, e->i, insert g
  ])('%j -> %j: %i', (a, b, edits) => {
    expect(editDistance(a, b)).toBe(edits);
    expect(editDistance(b, a)).toBe(edits);
  });
});

describe('closestParam', () => {
  it.each([
    // name, accepted, guess; allowed edits = max(1, floor(length / 3))
    ['nodPool', RANGE, 'nodepool'], // lower-cased "nodpool": 1 edit, 7 chars allow 2
    ['NODEPOOL', RANGE, 'nodepool'], // the same but for case
    ['fro', RANGE, 'from'], // 1 edit, 3 chars allow 1
    ['form', RANGE, null], // "from" is 2 edits away (no transpositions) and 4 chars allow 1
    ['too', RANGE, 'to'], // 1 edit
    ['xx', RANGE, null], // "to" is 2 away, 2 chars allow 1
    ['bogusParam', RANGE, null],
    ['limt', ['limit', 'offset'], 'limit'],
    ['ab', ['ax', 'ay'], 'ax'], // a tie goes to the first accepted
    ['seed', [], null],
    ['x'.repeat(MAX_NAME_CHARS + 1), ['x'.repeat(MAX_NAME_CHARS + 1)], null], // cut names are not guessed at
  ])('%j among %j: %j', (name, accepted, guess) => {
    expect(closestParam(name, accepted)).toBe(guess);
  });
});

describe('unknownQueryParamMessage', () => {
  it.each([
    [['nodPool'], RANGE, 'Unknown query parameter "nodPool" (did you mean "nodepool"?); this route takes from, to, nodepool'],
    [['bogusParam'], RANGE, 'Unknown query parameter "bogusParam"; this route takes from, to, nodepool'],
    [['x'], [], 'Unknown query parameter "x"; this route takes no query parameters'],
    [['a', 'fro'], RANGE, 'Unknown query parameters "a", "fro" (did you mean "from"?); this route takes from, to, nodepool'],
    [['a', 'b', 'c', 'd', 'e'], ['seed'], 'Unknown query parameters "a", "b", "c" and 2 more; this route takes seed'],
  ])('%j with %j', (unknown, accepted, message) => {
    expect(unknownQueryParamMessage(unknown, accepted)).toBe(message);
  });

  it('cuts a long name instead of echoing it', () => {
    const name = 'q'.repeat(5_000);
    const message = unknownQueryParamMessage([name], RANGE);
    expect(message).toBe(`Unknown query parameter "${'q'.repeat(MAX_NAME_CHARS)}…"; this route takes from, to, nodepool`);
  });
});
