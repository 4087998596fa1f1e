import { Injectable } from '@nestjs/common';
import type { PipelineResult } from './evaluation.pipeline';

/**
 * The evaluation report of matching runs, for tests: while something listens, every run of the
 * pipeline in this process explains its purchases (the offers they could see, each with outcome and
 * reasons, as simulate answers) and is heard. Nobody listens in production: the hook costs a
 * boolean test per run.
 */
@Injectable()
export class EvaluationReports {
  private readonly listeners = new Set<(r: PipelineResult) => void>();

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  /** Hears every run until the returned function is called. */
  listen(listener: (r: PipelineResult) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  hear(r: PipelineResult): void {
    for (const l of this.listeners) l(r);
  }
}
