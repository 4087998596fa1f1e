/**
 * The English texts of the claims' inbox messages (for a translator); the statements that write
 * them take them as parameters. `{ref}` is filled in where the message is written.
 */
export const CLAIM_MESSAGES = {
  /**
   * The bank posted a reference an operator had already stored from a claim's evidence, with a
   * different amount, merchant or cardholder (kind `claim.duplicate_differs`, once per reference).
   */
  duplicateDiffers: {
    title: 'A posted transaction differs from its approved claim',
    body:
      'Transaction {ref} was posted after an operator had approved a claim for it, with a different amount, ' +
      'merchant or cardholder than the claim’s evidence. It was kept as a duplicate (no second reward); ' +
      'the claim’s purchase stands. Look the transaction up and check the claim if the difference matters.',
  },
};
