import { AskQuestionsTool } from "@parley/session-core";
import { deleteFileTool, listFilesTool, readFileTool, shellTool, writeFileTool } from "@parley/tools";
import { describe, expect, it } from "vitest";
import { createDemoModel } from "../models/demo-model.js";
import { createDefaultAgent } from "./create-default-agent.js";
import { RequestFormTool } from "./request-form-tool.js";

describe("createDefaultAgent", () => {
  it("is the 'default' agent with the five workspace tools, ask_question and request_form", () => {
    const model = createDemoModel();
    const agent = createDefaultAgent({ model });
    expect(agent.agent_id).toBe("default");
    expect(agent.model).toBe(model);
    expect(agent.tools).toEqual({
      read_file: readFileTool,
      list_files: listFilesTool,
      write_file: writeFileTool,
      delete_file: deleteFileTool,
      shell: shellTool,
      ask_question: AskQuestionsTool,
      request_form: RequestFormTool,
    });
  });

  it("leaves shell out when the server has no sandbox for it", () => {
    const agent = createDefaultAgent({ model: createDemoModel(), shell: null });
    expect(Object.keys(agent.tools)).toEqual([
      "read_file",
      "list_files",
      "write_file",
      "delete_file",
      "ask_question",
      "request_form",
    ]);
  });

  it("tells the model when approval is requested and when to ask questions", () => {
    const { system } = createDefaultAgent({ model: createDemoModel() });
    expect(system).toContain(
      "write_file creates or overwrites a file, delete_file deletes one, and shell runs a command in the workspace. Each of these asks the user for approval",
    );
    expect(system).toContain(
      "Use it only when information you are missing would materially change the outcome",
    );
  });
});
