// No native extractor: msgpackr checks for a falsy export and uses its JavaScript decoder.
module.exports = null;
