// The admin console's identity keys card, on a business's page (console.js calls `identityKeys`): the keys its
// backend signs its users' external ids with — listed, added (the key shown once), retired.
"use strict";

/** The identity keys the business's backend signs its users' external ids with: added (the key shown once), retired. */
async function identityKeys(id) {
  const path = `/api/admin/businesses/${id}/identity-keys`;
  const keys = (await api("GET", path)).identity_keys;
  const retire = async (kid) => {
    if (!confirm(`Retire ${kid}? From now on no token signed with it vouches for a user.`)) return;
    await api("DELETE", `${path}/${encodeURIComponent(kid)}`);
    toast(`${kid} retired`);
    route();
  };
  const form = h("form", { class: "card", id: "identity-keys", novalidate: true }, h("h2", {}, "Identity keys"),
    h("p", { class: "muted" }, "Your backend signs each user's external id with a live key, as <kid>.<hex>. To rotate: add a key, move the backend over to it, then retire the old one; to revoke a leaked key, retire it."),
    formError(),
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Key", "Added", "Retired", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, keys.map((k) => h("tr", { "data-kid": k.kid }, h("td", { class: "mono" }, k.kid), h("td", {}, formatTime(k.created_at)),
        h("td", {}, k.retired_at ? formatTime(k.retired_at) : "live"),
        h("td", {}, k.retired_at ? "" : h("button", { type: "button", class: "danger", "aria-label": `Retire ${k.kid}`, onclick: () => retire(k.kid) }, "Retire"))))))),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Add a key")));
  onSubmit(form, async () => {
    const added = await api("POST", path, {});
    form.replaceWith(h("div", { class: "card", id: "identity-key-added" }, h("h2", {}, `${added.kid} added`),
      h("p", {}, "This key is shown once: give it to your backend now. It vouches from now on, beside the other live keys."),
      h("p", {}, h("strong", {}, "kid: "), h("span", { class: "mono" }, added.kid)),
      h("p", {}, h("strong", {}, "identity_key: "), h("span", { class: "secret" }, added.identity_key)),
      h("div", { class: "actions" }, h("button", { type: "button", onclick: () => route() }, "Done"))));
  });
  return form;
}
