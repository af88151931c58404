import { FairQuestionQueue } from '../host/questionQueue';
import { VsCodePrompter, type UsagePrompter } from './prompter';
import { LanguageModelSampling, type SamplingModel } from './usage/requests/samplingModel';

/**
 * The two things tests replace: who answers questions, and which model answers sampling
 * requests. Everything else (servers, documents, VS Code) stays real.
 */
class UsageServices {
  private readonly realPrompter = new VsCodePrompter();
  private readonly realModel = new LanguageModelSampling();
  private prompterValue: UsagePrompter = this.realPrompter;
  private modelValue: SamplingModel = this.realModel;
  /**
   * The servers' questions, one at a time (VS Code has one quick input, and a second question
   * would close the first), taking turns across servers; see FairQuestionQueue.
   */
  readonly questions = new FairQuestionQueue();

  get prompter(): UsagePrompter {
    return this.prompterValue;
  }

  get samplingModel(): SamplingModel {
    return this.modelValue;
  }

  setPrompter(prompter: UsagePrompter | undefined): void {
    this.prompterValue = prompter ?? this.realPrompter;
  }

  setSamplingModel(model: SamplingModel | undefined): void {
    this.modelValue = model ?? this.realModel;
  }
}

export const usageServices = new UsageServices();

/** What the integration tests get from the `mcpHost.internal.testHooks` command. */
export interface UsageTestHooks {
  /** Installs a prompter that answers instead of a person; undefined restores the real UI. */
  setPrompter(prompter: UsagePrompter | undefined): void;
  /** Installs a sampling model; undefined restores vscode.lm. */
  setSamplingModel(model: SamplingModel | undefined): void;
}

export const usageTestHooks: UsageTestHooks = {
  setPrompter: (p) => usageServices.setPrompter(p),
  setSamplingModel: (m) => usageServices.setSamplingModel(m),
};
