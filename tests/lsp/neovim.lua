-- Neovim (>= 0.11, headless) drives `gradual lsp` as a user would: open a file with two
-- errors, read the diagnostics (with related information), hover, inlay hints, apply the
-- quick fix for the misspelt dtype, edit the shape error away, and see the diagnostics clear.
-- Run by tests/test_neovim.py: GRADUAL_SERVER (a JSON list: the command), GRADUAL_RESULT (the
-- file the findings are written to as JSON).
local result_path = os.getenv("GRADUAL_RESULT")
local found = { steps = {} }

local function finish(code)
  vim.fn.writefile({ vim.json.encode(found) }, result_path)
  vim.cmd(code == 0 and "qall!" or ("cquit " .. code))
end

vim.defer_fn(function()
  found.error = "watchdog: timed out at step " .. tostring(#found.steps)
  finish(3)
end, 50000)

local function step(name) table.insert(found.steps, name) end

local function wait(ms, predicate, what)
  if not vim.wait(ms, predicate, 20) then
    found.error = "timed out waiting for " .. what
    finish(2)
    error(found.error)
  end
end

vim.api.nvim_create_autocmd("VimEnter", {
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
