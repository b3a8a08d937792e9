-- Neovim (>= 0.11, headless) drives `gradual lsp` as a user would: open a file with two
-- errors, read the diagnostics (with related information), hover, inlay hints, apply the
-- quick fix for the misspelt dtype, edit the shape error away, and see the diagnostics clear;
-- then completion, signature help, semantic tokens, document highlight, folding, workspace
-- symbols, rename (Neovim's own command), the quick fix of a broadcast mismatch in a second
-- file, and an ONNX model's diagnostics. One run for all: a Neovim start costs seconds here.
-- Run by tests/test_neovim.py: GRADUAL_SERVER (a JSON list: the command), GRADUAL_RESULT (the
-- file the findings are written to as JSON), GRADUAL_BROADCAST (the second file),
-- GRADUAL_MODEL (an ONNX model with a shape error).
local result_path = os.getenv("GRADUAL_RESULT")
-- as a user's init.lua maps the suffixes (docs/editors.md)
vim.filetype.add({ extension = { rly = "gradual", onnx = "gradual", pt2 = "gradual" } })
local found = { steps = {} }

local function finish(code)
  vim.fn.writefile({ vim.json.encode(found) }, result_path)
  vim.cmd(code == 0 and "qall!" or ("cquit " .. code))
end

vim.defer_fn(function()
  found.error = "watchdog: timed out at step " .. tostring(#found.steps)
  finish(3)
end, 90000)

local function step(name) table.insert(found.steps, name) end

local function wait(ms, predicate, what)
  if not vim.wait(ms, predicate, 20) then
    found.error = "timed out waiting for " .. what
    finish(2)
    error(found.error)
  end
end

vim.api.nvim_create_autocmd("VimEnter", {
  nested = true, -- the files it opens get their filetype (autocommands run inside it)
  callback = function()
    local ok, problem = pcall(function()
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].filetype = "gradual"
      local client_id = vim.lsp.start({
        name = "gradual",
        cmd = vim.json.decode(os.getenv("GRADUAL_SERVER")),
        root_dir = vim.fn.getcwd(),
      }, { bufnr = buf })
      local client = vim.lsp.get_client_by_id(client_id)
      step("started")
      wait(30000, function() return #vim.diagnostic.get(buf) == 2 end, "two diagnostics")
      found.encoding = client.offset_encoding
      found.diagnostics = {}
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        local raw = d.user_data and d.user_data.lsp or {}
        table.insert(found.diagnostics, {
          code = raw.code, line = d.lnum, col = d.col, end_col = d.end_col, message = d.message,
          related = raw.relatedInformation and raw.relatedInformation[1] and raw.relatedInformation[1].message or vim.NIL,
          href = raw.codeDescription and raw.codeDescription.href or vim.NIL,
        })
      end
      step("diagnostics")

      -- hover on the first argument of nn.dense: its inferred type
      local line = vim.fn.search("nn.dense(%0", "n") - 1
      local col = vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]:find("%%0") - 1
      vim.api.nvim_win_set_cursor(0, { line + 1, col })
      local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
      local hover = client:request_sync("textDocument/hover", params, 10000, buf)
      found.hover = hover and hover.result and hover.result.contents.value or vim.NIL
      step("hover")

      vim.lsp.inlay_hint.enable(true, { bufnr = buf })
      wait(10000, function() return #vim.lsp.inlay_hint.get({ bufnr = buf }) > 0 end, "inlay hints")
      found.hints = {}
      for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
        local label = item.inlay_hint.label
        if type(label) == "table" then label = label[1].value end
        table.insert(found.hints, label)
      end
      step("inlay hints")

      -- the quick fix for the misspelt dtype
      local typo
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        if d.user_data.lsp.code == "unknown-dtype" then typo = d end
      end
      local actions = client:request_sync("textDocument/codeAction", {
        textDocument = { uri = vim.uri_from_bufnr(buf) },
        range = typo.user_data.lsp.range,
        context = { diagnostics = { typo.user_data.lsp } },
      }, 10000, buf)
      local chosen
      for _, action in ipairs(actions.result or {}) do
        if action.kind == "quickfix" then chosen = action end
      end
      found.action = chosen and chosen.title or vim.NIL
      vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
      wait(15000, function() return #vim.diagnostic.get(buf) == 1 end, "the fixed dtype's diagnostic to go")
      found.after_fix = vim.diagnostic.get(buf)[1].user_data.lsp.code
      step("quick fix")

      -- edit the shape error away: the weights the right way round
      local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      for i, text in ipairs(lines) do
        if text:find("%%w2: Tensor%[%(128, 10%)") then
          vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { (text:gsub("%(128, 10%)", "(10, 128)")) })
        end
      end
      wait(15000, function() return #vim.diagnostic.get(buf) == 0 end, "the diagnostics to clear")
      found.text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
      step("cleared")

      -- the editing features, on the fixed program
      local uri = vim.uri_from_bufnr(buf)
      local function at(needle, shift)
        for i, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
          local col = text:find(needle, 1, true)
          if col then return { line = i - 1, character = col - 1 + (shift or 0) } end
        end
        error("not found: " .. needle)
      end
      local function request(method, params)
        local reply = client:request_sync(method, params, 10000, buf)
        if not reply or reply.err then error(method .. ": " .. vim.inspect(reply)) end
        return reply.result
      end

      -- completion after `nn.`: the operators of the namespace, with their signatures
      local completion = request("textDocument/completion", { textDocument = { uri = uri }, position = at("nn.relu", 3) })
      found.completion = {}
      for _, item in ipairs(completion.items or completion) do
        found.completion[item.label] = item.detail or ""
      end
      step("completion")

      -- signature help inside the second call: its second parameter
      local help = request("textDocument/signatureHelp", { textDocument = { uri = uri }, position = at("%w2)", 0) })
      local sig = help.signatures[1]
      local active = sig.parameters[(help.activeParameter or sig.activeParameter) + 1].label
      found.signature = { label = sig.label, active = sig.label:sub(active[1] + 1, active[2]) }
      step("signature help")

      -- semantic tokens, as Neovim colours the buffer with them
      wait(10000, function()
        return #vim.lsp.semantic_tokens.get_at_pos(buf, at("@main").line, at("@main").character + 1) > 0
      end, "semantic tokens")
      local token = vim.lsp.semantic_tokens.get_at_pos(buf, at("@main").line, at("@main").character + 1)[1]
      found.token = { type = token.type, declaration = token.modifiers.declaration or false }
      step("semantic tokens")

      -- document highlight of %0: where it is bound, where it is used
      local highlights = request("textDocument/documentHighlight", { textDocument = { uri = uri }, position = at("%0 =", 1) })
      found.highlights = {}
      for _, h in ipairs(highlights) do table.insert(found.highlights, { h.range.start.line, h.kind }) end
      step("highlight")

      -- folding ranges: the definition
      found.folds = {}
      for _, f in ipairs(request("textDocument/foldingRange", { textDocument = { uri = uri } })) do
        table.insert(found.folds, { f.startLine, f.endLine, f.kind or vim.NIL })
      end
      step("folding")

      -- workspace symbols: this file's and one on disk never opened
      found.symbols = {}
      for _, s in ipairs(request("workspace/symbol", { query = "" })) do
        table.insert(found.symbols, s.name .. " " .. vim.fs.basename(vim.uri_to_fname(s.location.uri)))
      end
      table.sort(found.symbols)
      step("workspace symbols")

      -- rename %0 with Neovim's own command (prepareRename, then the edit applied)
      vim.api.nvim_win_set_cursor(0, { at("%0 =").line + 1, at("%0 =").character + 1 })
      vim.lsp.buf.rename("%hidden", { bufnr = buf })
      wait(10000, function()
        return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find("%hidden", 1, true) ~= nil
      end, "the rename")
      found.renamed = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
      step("rename")

      -- a broadcast mismatch in another file, fixed by the quick fix that expands the bias
      vim.cmd.edit(os.getenv("GRADUAL_BROADCAST"))
      local other = vim.api.nvim_get_current_buf()
      vim.bo[other].filetype = "gradual"
      vim.lsp.buf_attach_client(other, client_id)
      wait(15000, function() return #vim.diagnostic.get(other) == 1 end, "the broadcast diagnostic")
      local mismatch = vim.diagnostic.get(other)[1].user_data.lsp
      local fixes = client:request_sync("textDocument/codeAction", {
        textDocument = { uri = vim.uri_from_bufnr(other) },
        range = mismatch.range,
        context = { diagnostics = { mismatch } },
      }, 10000, other)
      found.broadcast_actions = {}
      local align
      for _, action in ipairs(fixes.result or {}) do
        table.insert(found.broadcast_actions, action.title)
        if action.isPreferred then align = action end
      end
      vim.lsp.util.apply_workspace_edit(align.edit, client.offset_encoding)
      wait(15000, function() return #vim.diagnostic.get(other) == 0 end, "the broadcast diagnostic to go")
      found.broadcast = table.concat(vim.api.nvim_buf_get_lines(other, 0, -1, false), "\n")
      step("broadcast fix")

      -- an ONNX model opened as a document (its suffix mapped to the filetype): checked from
      -- disk, its diagnostics at the start, each naming its node
      vim.cmd.edit(os.getenv("GRADUAL_MODEL"))
      local model = vim.api.nvim_get_current_buf()
      found.model_filetype = vim.bo[model].filetype
      vim.lsp.buf_attach_client(model, client_id)
      wait(20000, function() return #vim.diagnostic.get(model) > 0 end, "the model's diagnostics")
      found.model = {}
      for _, d in ipairs(vim.diagnostic.get(model)) do
        table.insert(found.model, { code = d.user_data.lsp.code, line = d.lnum, message = d.message })
      end
      step("model")
      client:stop()
    end)
    if not ok then
      found.error = found.error or tostring(problem)
      finish(1)
    else
      finish(0)
    end
  end,
})
