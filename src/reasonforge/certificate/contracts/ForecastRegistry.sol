// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Commit-reveal forecasts and their score certificates.
///
/// commit(root, count, scope): one transaction per batch of forecasts; stores the committer, the block
/// timestamp (the time a forecast is proven to have existed by) and the leaf count; a root is never
/// re-registered. scope is the question-set digest, so all of a forecaster's batches for one question set
/// are listed (rootsOf) and a score certificate must account for every one of them.
///
/// registerScore(score, roots, signatures): checks that the roots are exactly the forecaster's batches
/// for the scope (none hidden, none foreign), that every committed leaf is accounted for (scored, excluded
/// or unrevealed), and that a threshold of the trusted validators signed the certificate id (secp256k1,
/// ecrecover; signers strictly increasing by address, so no validator counts twice).
contract ForecastRegistry {
    bytes32 public constant DOMAIN = keccak256("ReasonForge/ForecastScore/v1");

    struct Batch {
        address committer;
        uint64 timestamp;
        uint32 count;
        bytes32 scope;
    }

    struct Score {
        address forecaster;
        bytes32 scope; // question-set digest (ids and cutoffs)
        bytes32 resolutionDigest; // outcomes and market prices scored against
        bytes32 bodyDigest; // sha256 of the certificate body (reveals, exclusions, scores)
        uint32 scored;
        uint32 excluded; // opened leaves not scored (late, duplicate, not in the question set)
        uint32 unrevealed; // committed leaves never validly opened
        int64 brierPpm;
        int64 logLossPpm;
        int64 marketSkillPpm;
    }

    mapping(bytes32 => Batch) private _batches;
    mapping(address => mapping(bytes32 => bytes32[])) private _roots;
    mapping(bytes32 => Score) private _scores;
    mapping(bytes32 => uint64) public scoreRegisteredAt;
    mapping(address => bool) public isValidator;
    address[] private _validators;
    uint8 public immutable threshold;

    error ZeroRoot();
    error EmptyBatch();
    error RootAlreadyCommitted(bytes32 root);
    error UnknownRoot(bytes32 root);
    error RootOfAnotherForecaster(bytes32 root, address committer);
    error RootOfAnotherScope(bytes32 root);
    error RootsIncomplete(uint256 given, uint256 committed);
    error RootsOutOfOrder(uint256 index);
    error LeavesNotAccounted(uint256 committed, uint256 accounted);
    error RevealIncomplete(uint256 unrevealed);
    error BadSignature(uint256 index);
    error UnknownValidator(uint256 index, address signer);
    error SignersNotIncreasing(uint256 index);
    error BelowThreshold(uint256 signed, uint256 threshold);
    error ScoreAlreadyRegistered(bytes32 certId);
    error BadValidatorSet();

    event Committed(bytes32 indexed root, address indexed committer, bytes32 indexed scope, uint32 count, uint64 timestamp);
    event ScoreRegistered(bytes32 indexed certId, address indexed forecaster, bytes32 indexed scope);

    constructor(address[] memory validators_, uint8 threshold_) {
        if (threshold_ == 0 || threshold_ > validators_.length) revert BadValidatorSet();
        for (uint256 i = 0; i < validators_.length; i++) {
            address v = validators_[i];
            if (v == address(0) || isValidator[v]) revert BadValidatorSet();
            isValidator[v] = true;
        }
        _validators = validators_;
        threshold = threshold_;
    }

    function commit(bytes32 root, uint32 count, bytes32 scope) external {
        if (root == bytes32(0)) revert ZeroRoot();
        if (count == 0) revert EmptyBatch();
        if (_batches[root].committer != address(0)) revert RootAlreadyCommitted(root);
        uint64 ts = uint64(block.timestamp);
        _batches[root] = Batch(msg.sender, ts, count, scope);
        _roots[msg.sender][scope].push(root);
        emit Committed(root, msg.sender, scope, count, ts);
    }

    function batchOf(bytes32 root) external view returns (Batch memory) {
        return _batches[root];
    }

    function rootsOf(address committer, bytes32 scope) external view returns (bytes32[] memory) {
        return _roots[committer][scope];
    }

    function validators() external view returns (address[] memory) {
        return _validators;
    }

    function scoreOf(bytes32 certId) external view returns (Score memory) {
        return _scores[certId];
    }

    function scoreCertificateId(Score calldata s, bytes32[] calldata roots) public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN, block.chainid, address(this), s, roots));
    }

    function registerScore(Score calldata s, bytes32[] calldata roots, bytes[] calldata signatures)
        external
        returns (bytes32 certId)
    {
        bytes32[] storage committed = _roots[s.forecaster][s.scope];
        if (roots.length != committed.length) revert RootsIncomplete(roots.length, committed.length);
        uint256 leaves = 0;
        for (uint256 i = 0; i < roots.length; i++) {
            Batch storage b = _batches[roots[i]];
            if (b.committer == address(0)) revert UnknownRoot(roots[i]);
            if (b.committer != s.forecaster) revert RootOfAnotherForecaster(roots[i], b.committer);
            if (b.scope != s.scope) revert RootOfAnotherScope(roots[i]);
            if (committed[i] != roots[i]) revert RootsOutOfOrder(i);
            leaves += b.count;
        }
        uint256 accounted = uint256(s.scored) + s.excluded + s.unrevealed;
        if (accounted != leaves) revert LeavesNotAccounted(leaves, accounted);
        // A withheld leaf could be the other side of a hedge (commit both, open the winner): only a
        // complete reveal is certifiable.
        if (s.unrevealed != 0) revert RevealIncomplete(s.unrevealed);
        certId = scoreCertificateId(s, roots);
        if (scoreRegisteredAt[certId] != 0) revert ScoreAlreadyRegistered(certId);
        address last = address(0);
        for (uint256 i = 0; i < signatures.length; i++) {
            address signer = _recover(certId, signatures[i], i);
            if (!isValidator[signer]) revert UnknownValidator(i, signer);
            if (signer <= last) revert SignersNotIncreasing(i);
            last = signer;
        }
        if (signatures.length < threshold) revert BelowThreshold(signatures.length, threshold);
        _scores[certId] = s;
        scoreRegisteredAt[certId] = uint64(block.timestamp);
        emit ScoreRegistered(certId, s.forecaster, s.scope);
    }

    function _recover(bytes32 digest, bytes calldata sig, uint256 index) private pure returns (address signer) {
        if (sig.length != 65) revert BadSignature(index);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 sv = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        // Low-s only (EIP-2): a signature has one valid encoding.
        if (v != 27 && v != 28) revert BadSignature(index);
        if (uint256(sv) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) revert BadSignature(index);
        signer = ecrecover(digest, v, r, sv);
        if (signer == address(0)) revert BadSignature(index);
    }
}
